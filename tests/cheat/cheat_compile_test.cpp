// The cheat suite on the CPU (label cheat): the manifest is whole, every cheating kernel builds
// with NVRTC for the GPUs the suite runs on, and its PTX shows the trick it claims (the checks
// that refuse PTX constructs are then looking at something real).
#include "gpu/compile/nvrtc_compiler.hpp"
#include "tests/cheat/cheat_manifest.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace warpforge;
using warpforge::cheat::cheat_entry;
using warpforge::cheat::load_cheats;
using vocabulary::branch_outcome;

namespace {

constexpr std::size_t least_cheat_kinds = 12; // issue 21

std::string entry_of(const cheat_entry& e) { return e.problem == "transpose" ? "transpose" : "vector_add"; }

gpu::compile_result compile(const cheat_entry& e, bool relocatable) {
  gpu::compile_request request;
  request.source = e.source();
  request.source_name = e.name();
  request.entry = entry_of(e);
  request.arch = "sm_90";
  if (relocatable)
    request.extra_flags = {"-rdc=true"};
  return gpu::compile_kernel(request);
}

} // namespace

TEST(cheat_suite, the_manifest_names_every_kernel_with_its_outcomes) {
  const auto cheats = load_cheats();
  std::set<std::string> kinds;
  std::set<std::filesystem::path> listed;
  for (const auto& e : cheats) {
    ASSERT_FALSE(e.kind.empty()) << "a line of tests/cheat/cheats.tsv does not have 7 tab-separated fields";
    EXPECT_TRUE(std::filesystem::exists(e.file)) << e.file;
    EXPECT_TRUE(e.problem == "transpose" || e.problem == "vector_add") << e.problem;
    EXPECT_FALSE(e.bench.empty()) << e.name() << ": no outcome for warpforge bench";
    EXPECT_EQ(e.kind.find(' '), std::string::npos) << e.kind;
    if (e.kind == "honest") {
      EXPECT_EQ(e.runner, std::optional{branch_outcome::passed});
      EXPECT_EQ(e.bench, std::vector{branch_outcome::passed});
    } else {
      for (auto outcome : e.bench)
        EXPECT_NE(outcome, branch_outcome::passed) << e.name() << ": a cheat that passes is not caught";
      EXPECT_TRUE(kinds.insert(e.kind).second) << "kind listed twice: " << e.kind;
    }
    listed.insert(e.file);
  }
  EXPECT_GE(kinds.size(), least_cheat_kinds);
  for (const char* folder : {"transpose", "vector_add"})
    for (const auto& file : std::filesystem::directory_iterator{cheat::source_root() / "tests/cheat" / folder})
      EXPECT_TRUE(listed.contains(file.path())) << file.path() << " is not in tests/cheat/cheats.tsv";
}

TEST(cheat_suite, every_kernel_builds_with_nvrtc) {
  for (const auto& e : load_cheats()) {
    const bool relocatable = e.kind == "dynamic_parallelism";
    auto built = compile(e, relocatable);
    ASSERT_TRUE(built) << e.name() << ": " << built.error().log;
    EXPECT_FALSE(built->cubin.empty()) << e.name();
  }
}

TEST(cheat_suite, each_kernel_carries_the_trick_it_claims) {
  for (const auto& e : load_cheats()) {
    auto built = compile(e, e.kind == "dynamic_parallelism");
    ASSERT_TRUE(built) << e.name();
    const auto& ptx = built->ptx;
    const bool keeps_state = ptx.find(".global .align") != std::string::npos ||
                             ptx.find(".visible .global") != std::string::npos;
    if (e.kind.starts_with("memo_") || e.kind == "stale_output" || e.kind == "skipped_blocks" ||
        e.kind == "partial_writes" || e.kind == "works_only_on_unrecognised_inputs" ||
        e.kind == "persistent_kernel")
      EXPECT_TRUE(keeps_state) << e.name() << ": keeps state across launches in __device__ globals";
    if (e.kind == "honest")
      EXPECT_FALSE(keeps_state) << e.name();
    if (e.kind == "timer_dependent_work")
      EXPECT_NE(ptx.find("%globaltimer"), std::string::npos) << e.name();
    if (e.kind == "lower_precision")
      EXPECT_NE(ptx.find("cvt.rn.f16.f32"), std::string::npos) << e.name();
    if (e.kind == "dynamic_parallelism")
      EXPECT_TRUE(ptx.find("LaunchDevice") != std::string::npos) // __cudaCDP2LaunchDeviceV2 in CUDA 13
        << e.name();
  }
}

TEST(cheat_suite, dynamic_parallelism_does_not_build_as_an_ordinary_candidate) {
  // A candidate is built without -rdc=true, so a device-side launch is a compile_error before any
  // PTX check sees it: one of the two outcomes the manifest allows.
  for (const auto& e : load_cheats())
    if (e.kind == "dynamic_parallelism") {
      auto built = compile(e, false);
      EXPECT_FALSE(built) << e.name() << " built without -rdc=true: the PTX check must refuse it";
    }
}
