#include "gpu/call_check.hpp"
#include "gpu/runtime/cuda_call.hpp"

#include <cupti_version.h>
#include <gtest/gtest.h>

using namespace warpforge::gpu;

TEST(call_check, every_gpu_api_round_trips_through_its_name) {
  for (auto api : all_gpu_apis)
    EXPECT_EQ(gpu_api_from_string(to_string(api)), api) << to_string(api);
  EXPECT_FALSE(gpu_api_from_string("opencl"));
}

TEST(call_check, a_successful_call_is_a_value) {
  int major = 0;
  int minor = 0;
  auto result = WARPFORGE_GPU_CALL(nvrtcVersion(&major, &minor));
  ASSERT_TRUE(result) << result.error().to_string();
  EXPECT_GE(major, 13);
}

TEST(call_check, a_failed_nvrtc_call_records_its_text_place_and_code) {
  auto result = WARPFORGE_GPU_CALL(nvrtcVersion(nullptr, nullptr));
  ASSERT_FALSE(result);
  const auto& e = result.error();
  EXPECT_EQ(e.api, gpu_api::nvrtc);
  EXPECT_EQ(e.code, NVRTC_ERROR_INVALID_INPUT);
  EXPECT_EQ(e.code_name, "NVRTC_ERROR_INVALID_INPUT");
  EXPECT_EQ(e.call, "nvrtcVersion(nullptr, nullptr)");
  EXPECT_NE(e.file.find("call_check_test.cpp"), std::string::npos);
  EXPECT_GT(e.line, 0);
  EXPECT_NE(e.to_string().find("nvrtcVersion(nullptr, nullptr) failed: NVRTC_ERROR_INVALID_INPUT"),
            std::string::npos)
    << e.to_string();
}

TEST(call_check, a_failed_cudart_call_records_name_and_message) {
  auto result = WARPFORGE_GPU_CALL(cudaRuntimeGetVersion(nullptr));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().api, gpu_api::cudart);
  EXPECT_EQ(result.error().code_name, "cudaErrorInvalidValue");
  EXPECT_FALSE(result.error().message.empty());
}

TEST(call_check, a_failed_cupti_call_records_its_result_name) {
  auto result = WARPFORGE_GPU_CALL(cuptiGetVersion(nullptr));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().api, gpu_api::cupti);
  EXPECT_EQ(result.error().code_name, "CUPTI_ERROR_INVALID_PARAMETER");
}

TEST(call_check, library_files_are_named_relative_to_the_repository) {
  // gpu/ is built with -fmacro-prefix-map, so its errors say "gpu/...", not an absolute path.
  auto error = make_call_error(gpu_api::cudart, 1, "x", "y", "f()", "gpu/a.cpp", 3);
  EXPECT_EQ(error.to_string(), "f() failed: x (1): y [gpu/a.cpp:3]");
}
