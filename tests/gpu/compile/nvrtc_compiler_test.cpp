#include "gpu/compile/cubin_resources.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/compile/include_check.hpp"

#include "compile_test_support.hpp"

#include <gtest/gtest.h>

using namespace warpforge::gpu;

namespace {

compile_request scale_request() {
  compile_request request;
  request.source = test::scale_kernel;
  request.source_name = "scale.cu";
  request.entry = "scale";
  request.arch = "sm_90";
  return request;
}

} // namespace

TEST(compile_kernel, a_valid_kernel_gives_ptx_and_a_cubin_holding_the_entry) {
  auto result = compile_kernel(scale_request());
  ASSERT_TRUE(result) << result.error().log;
  EXPECT_NE(result->ptx.find(".entry scale"), std::string::npos);
  EXPECT_NE(result->ptx.back(), '\0') << "PTX text must not keep NVRTC's trailing NUL";
  ASSERT_FALSE(result->cubin.empty());
  auto entries = kernel_entries(result->cubin);
  ASSERT_TRUE(entries) << entries.error().detail;
  EXPECT_EQ(*entries, std::vector<std::string>{"scale"});
  EXPECT_EQ(result->entry, "scale");
  EXPECT_EQ(result->symbol, "scale") << "an extern \"C\" entry's lowered name is its own";
  EXPECT_EQ(result->arch, "sm_90");
  EXPECT_GT(result->compile_s, 0.0);
  EXPECT_FALSE(result->cache_hit);
}

TEST(compile_kernel, sm_90a_is_a_real_target_too) {
  auto request = scale_request();
  request.arch = "sm_90a";
  auto result = compile_kernel(request);
  ASSERT_TRUE(result) << result.error().log;
  EXPECT_FALSE(result->cubin.empty());
}

TEST(compile_kernel, a_syntax_error_is_a_compile_error_whose_log_names_the_line) {
  auto request = scale_request();
  request.source = "extern \"C\" __global__ void scale(float* c) {\n"
                   "  c[0] = 1.0f +* ;\n"
                   "}\n";
  auto result = compile_kernel(request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, compile_failure_kind::compile_error);
  EXPECT_NE(result.error().log.find("scale.cu(2): error"), std::string::npos)
      << result.error().log;
  EXPECT_NE(result.error().log.find("error"), std::string::npos) << result.error().log;
}

TEST(compile_kernel, the_log_keeps_warnings_on_success) {
  auto request = scale_request();
  request.source = "extern \"C\" __global__ void scale(float* c) {\n"
                   "  int unused_variable = 3;\n"
                   "  c[0] = 1.0f;\n"
                   "}\n";
  auto result = compile_kernel(request);
  ASSERT_TRUE(result) << result.error().log;
  EXPECT_NE(result->log.find("unused_variable"), std::string::npos) << result->log;
}

TEST(compile_kernel, an_unknown_option_is_invalid_option) {
  auto request = scale_request();
  request.extra_flags = {"--no-such-nvrtc-flag"};
  auto result = compile_kernel(request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, compile_failure_kind::invalid_option);
  EXPECT_NE(result.error().log.find("NVRTC_ERROR_INVALID_OPTION"), std::string::npos)
      << result.error().log;
}

TEST(compile_kernel, an_unsupported_arch_is_invalid_option) {
  auto request = scale_request();
  request.arch = "sm_70"; // dropped by CUDA 13
  auto result = compile_kernel(request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, compile_failure_kind::invalid_option);
}

TEST(compile_kernel, a_virtual_arch_is_invalid_option_because_it_gives_no_cubin) {
  auto request = scale_request();
  request.arch = "compute_90";
  auto result = compile_kernel(request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, compile_failure_kind::invalid_option);
}

TEST(compile_kernel, an_entry_the_source_does_not_define_is_a_compile_error_naming_the_entry_and_the_file) {
  auto request = scale_request();
  request.entry = "scal";
  auto result = compile_kernel(request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, compile_failure_kind::compile_error);
  EXPECT_NE(result.error().log.find("identifier \"scal\" is undefined"), std::string::npos) << result.error().log;
  EXPECT_NE(result.error().log.find("entry 'scal' names no __global__ function of scale.cu"), std::string::npos)
      << result.error().log;
}

TEST(compile_kernel, an_entry_naming_a_device_function_is_a_compile_error_naming_the_entry) {
  auto request = scale_request();
  request.source = std::string{"__device__ void helper(float* c) { c[0] = 1.0f; }\n"} + request.source;
  request.entry = "helper";
  auto result = compile_kernel(request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, compile_failure_kind::compile_error);
  EXPECT_NE(result.error().log.find("cannot form address of a non-__global__ function"), std::string::npos)
      << result.error().log;
  EXPECT_NE(result.error().log.find("entry 'helper' names no __global__ function of scale.cu"), std::string::npos)
      << result.error().log;
}

TEST(compile_kernel, defines_reach_the_source) {
  auto request = scale_request();
  request.defines = {{"SCALE", "3.5f"}};
  auto result = compile_kernel(request);
  ASSERT_TRUE(result) << result.error().log;
  EXPECT_NE(result->ptx.find("0f40600000"), std::string::npos) << "3.5f in the PTX";
}

// NVRTC would copy a line of the included file into its error log (and from there into
// compile.log, the store and the events): such includes never reach it.
TEST(compile_kernel, an_include_outside_the_problems_folder_is_refused_before_nvrtc_reads_it) {
  for (const std::string include : {"\"/etc/passwd\"", "\"../../../etc/passwd\"", "</etc/hostname>", "SECRET_FILE"}) {
    auto request = scale_request();
    request.source = "#include " + include + "\n" + request.source;
    const auto result = compile_kernel(request);
    ASSERT_FALSE(result) << include;
    EXPECT_EQ(result.error().kind, compile_failure_kind::compile_error) << include;
    EXPECT_NE(result.error().log.find("line 1 column 1: #include " + include), std::string::npos) << result.error().log;
    EXPECT_EQ(result.error().log.find("root:"), std::string::npos) << "nothing of the file: " << result.error().log;
  }
}

TEST(include_refusal, relative_paths_inside_and_cuda_headers_are_allowed) {
  EXPECT_FALSE(include_refusal("#include <cuda_fp16.h>\n#include \"common/tile.cuh\"\n#include \"a/../b.h\"\n"));
  EXPECT_TRUE(include_refusal("  #  include \"a/../../b.h\"\n"));
  EXPECT_FALSE(include_refusal("// #include \"/etc/passwd\" in a comment is not a directive\n"));
}

TEST(nvrtc_version_text, is_major_dot_minor) {
  const auto version = nvrtc_version_text();
  EXPECT_NE(version, "unknown");
  EXPECT_NE(version.find('.'), std::string::npos);
}
