#include "gpu/compile/compile_cache.hpp"
#include "gpu/compile/compile_options.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace warpforge::gpu;

TEST(compile_options, canonical_options_are_arch_std_lineinfo_includes_defines_then_user_flags) {
  compile_request request;
  request.arch = "sm_90a";
  request.std = "c++20";
  request.include_dirs = {"/inc/a", "/inc/b"};
  request.defines = {{"BLOCK", "256"}, {"USE_FAST", ""}};
  request.extra_flags = {"--use_fast_math"};
  EXPECT_EQ(canonical_options(request),
            (std::vector<std::string>{"--gpu-architecture=sm_90a", "--std=c++20", "-lineinfo",
                                      "-I/inc/a", "-I/inc/b", "-DBLOCK=256", "-DUSE_FAST",
                                      "--use_fast_math"}));
  request.line_info = false;
  EXPECT_EQ(canonical_options(request)[2], "-I/inc/a");
  EXPECT_EQ(join_options({"a", "b"}), "a b");
}

TEST(compile_options, every_failure_kind_round_trips_through_its_name) {
  for (auto kind : all_compile_failure_kinds)
    EXPECT_EQ(compile_failure_kind_from_string(to_string(kind)), kind) << to_string(kind);
  EXPECT_EQ(to_string(compile_failure_kind::compile_error), "compile_error");
  EXPECT_EQ(to_string(compile_failure_kind::invalid_option), "invalid_option");
  EXPECT_EQ(to_string(compile_failure_kind::internal), "internal");
  EXPECT_FALSE(compile_failure_kind_from_string("COMPILE_ERROR"));
}

TEST(default_cache_root, prefers_warpforge_cache_dir_then_xdg_cache_home_then_home) {
  EXPECT_EQ(default_cache_root({"/c", "/x", "/h"}), "/c");
  EXPECT_EQ(default_cache_root({std::nullopt, "/x", "/h"}), "/x/warpforge");
  EXPECT_EQ(default_cache_root({"", "", "/h"}), "/h/.cache/warpforge");
  EXPECT_EQ(default_cache_root({std::nullopt, std::nullopt, std::nullopt}), "/tmp/warpforge-cache")
      << "never the working directory (it may be a checkout)";
}
