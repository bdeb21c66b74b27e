#include "gpu/compile/nvcc_compiler.hpp"

#include "compile_test_support.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>

using namespace warpforge::gpu;

namespace {

compile_request program_request(std::string source) {
  compile_request request;
  request.source = std::move(source);
  request.source_name = "program.cu";
  request.arch = "sm_90";
  return request;
}

std::string run_and_capture(const std::filesystem::path& executable) {
  std::string output;
  FILE* pipe = ::popen(executable.c_str(), "r");
  if (!pipe)
    return output;
  std::array<char, 256> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe))
    output += buffer.data();
  ::pclose(pipe);
  return output;
}

} // namespace

TEST(program_compiler, builds_a_program_that_runs_then_finds_it_in_the_cache) {
  test::scratch_dir dir;
  auto compiler = program_compiler::from_toolchain(compile_cache(dir.path));
  if (!compiler)
    GTEST_SKIP() << compiler.error().log;
  EXPECT_NE(compiler->nvcc_version().find("Cuda compilation tools"), std::string::npos);

  auto request = program_request(
      "#include <cstdio>\nint main() { printf(\"RESULT: x=%d\\n\", X); return 0; }\n");
  request.defines = {{"X", "1"}};
  auto built = compiler->compile(request);
  ASSERT_TRUE(built) << built.error().log;
  EXPECT_FALSE(built->cache_hit);
  EXPECT_GT(built->compile_s, 0.0);
  EXPECT_EQ(run_and_capture(built->executable), "RESULT: x=1\n");

  auto again = compiler->compile(request);
  ASSERT_TRUE(again) << again.error().log;
  EXPECT_TRUE(again->cache_hit);
  EXPECT_EQ(again->compile_s, 0.0);
  EXPECT_EQ(again->executable, built->executable);
  EXPECT_EQ(run_and_capture(again->executable), "RESULT: x=1\n");

  request.defines = {{"X", "2"}};
  EXPECT_NE(compiler->key_for(request), compiler->key_for(program_request(request.source)));
}

TEST(program_compiler, a_broken_program_is_a_compile_error_with_nvccs_message_and_is_cached) {
  test::scratch_dir dir;
  auto compiler = program_compiler::from_toolchain(compile_cache(dir.path));
  if (!compiler)
    GTEST_SKIP() << compiler.error().log;
  const auto request = program_request("int main() {\n  return undefined_thing;\n}\n");
  auto result = compiler->compile(request);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, compile_failure_kind::compile_error);
  EXPECT_NE(result.error().log.find("undefined_thing"), std::string::npos) << result.error().log;
  EXPECT_NE(result.error().log.find("program.cu(2)"), std::string::npos) << result.error().log;

  auto again = compiler->compile(request);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().log, result.error().log);
  EXPECT_TRUE(compiler->cache().contains(compiler->key_for(request)));
}

TEST(program_compiler, a_missing_nvcc_is_an_internal_failure) {
  test::scratch_dir dir;
  auto compiler = program_compiler::create(compile_cache(dir.path), dir.path / "no-nvcc");
  ASSERT_FALSE(compiler);
  EXPECT_EQ(compiler.error().kind, compile_failure_kind::internal);
}
