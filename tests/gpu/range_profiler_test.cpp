// The range profiler's pure part on the CPU: which CUPTI failures mean what.
#include "gpu/runtime/range_profiler.hpp"

#include <cupti_result.h>
#include <gtest/gtest.h>

#include <string_view>

using namespace warpforge::gpu;

TEST(range_profiler, privilege_errors_mean_counters_unavailable) {
  EXPECT_EQ(classify_cupti_failure(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES),
            profile_status::counters_unavailable);
  EXPECT_EQ(classify_cupti_failure(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES),
            profile_status::counters_unavailable);
}

TEST(range_profiler, devices_cupti_cannot_profile_mean_not_supported) {
  for (auto code : {CUPTI_ERROR_NOT_SUPPORTED, CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED,
                    CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED,
                    CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED,
                    CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED, CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED,
                    CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED, CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED,
                    CUPTI_ERROR_INVALID_CHIP_NAME})
    EXPECT_EQ(classify_cupti_failure(code), profile_status::not_supported) << code;
}

TEST(range_profiler, any_other_failure_is_failed) {
  for (auto code : {CUPTI_ERROR_UNKNOWN, CUPTI_ERROR_INVALID_PARAMETER, CUPTI_ERROR_HARDWARE_BUSY,
                    CUPTI_ERROR_INVALID_METRIC_NAME, CUPTI_ERROR_OUT_OF_MEMORY})
    EXPECT_EQ(classify_cupti_failure(code), profile_status::failed) << code;
}

TEST(range_profiler, the_permission_hint_says_how_to_allow_counters) {
  std::string_view hint = counter_permission_hint;
  EXPECT_NE(hint.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string_view::npos);
  EXPECT_NE(hint.find("root"), std::string_view::npos);
}
