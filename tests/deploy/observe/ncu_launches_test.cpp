// The ncu fallback: its command line and reading its CSV (raw and details pages) into launches.

#include "deploy/observe/ncu_launches.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace warpforge::observe {
namespace {

std::string fixture(std::string_view name) {
  std::ifstream in{std::string{WARPFORGE_SOURCE_DIR} + "/tests/deploy/observe/fixtures/" + std::string{name}};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool has(const std::vector<std::string>& args, std::string_view a, std::string_view b) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == a && args[i + 1] == b)
      return true;
  return false;
}

TEST(NcuLaunches, TheCommandNeverLocksClocksAndEndsWithTheProgram) {
  auto args = ncu_observe_arguments("transpose", "/tmp/o/ncu.csv", {"/bin/app", "--bench"});
  EXPECT_TRUE(has(args, "--clock-control", "none"));
  EXPECT_TRUE(has(args, "--cache-control", "none"));
  EXPECT_TRUE(has(args, "--page", "raw"));
  EXPECT_TRUE(has(args, "--print-units", "base"));
  EXPECT_TRUE(has(args, "--log-file", "/tmp/o/ncu.csv"));
  EXPECT_TRUE(has(args, "--kernel-name", "regex:transpose"));
  EXPECT_TRUE(has(args, "--metrics",
                  "gpu__time_duration.sum,launch__grid_dim_x,launch__grid_dim_y,launch__grid_dim_z,"
                  "launch__block_dim_x,launch__block_dim_y,launch__block_dim_z,launch__shared_mem_per_block_dynamic"));
  ASSERT_GE(args.size(), 2u);
  EXPECT_EQ(args[args.size() - 2], "/bin/app");
  EXPECT_EQ(args.back(), "--bench");
}

TEST(NcuLaunches, AMangledNameIsMatchedExactlyAndADemangledOneAsAnEscapedRegex) {
  auto mangled = ncu_observe_arguments("_Z9transposePfPKfii", "c.csv", {"/a"});
  EXPECT_TRUE(has(mangled, "--kernel-name-base", "mangled"));
  EXPECT_TRUE(has(mangled, "--kernel-name", "_Z9transposePfPKfii"));
  auto templated = ncu_observe_arguments("transpose<32>", "c.csv", {"/a"});
  EXPECT_TRUE(has(templated, "--kernel-name-base", "demangled"));
  EXPECT_TRUE(has(templated, "--kernel-name", "regex:transpose<32>"));
  auto every = ncu_observe_arguments("", "c.csv", {"/a"});
  EXPECT_EQ(std::find(every.begin(), every.end(), "--kernel-name"), every.end());
  auto dotted = ncu_observe_arguments("a.b(c)", "c.csv", {"/a"});
  EXPECT_TRUE(has(dotted, "--kernel-name", "regex:a\\.b\\(c\\)"));
}

TEST(NcuLaunches, ReadsOneLaunchPerRowOfTheRawPage) {
  auto launches = ncu_csv_launches(fixture("ncu_observe_raw.csv"));
  ASSERT_TRUE(launches) << launches.error();
  ASSERT_EQ(launches->size(), 3u);
  const auto& t = (*launches)[0];
  EXPECT_EQ(t.sequence, 0u);
  EXPECT_EQ(t.kernel, "_Z9transposePfPKfii");
  EXPECT_EQ(t.demangled, "transpose(float*, float const*, int, int)");
  EXPECT_EQ(t.grid, (std::array<std::uint32_t, 3>{256, 256, 1}));
  EXPECT_EQ(t.block, (std::array<std::uint32_t, 3>{32, 8, 1}));
  EXPECT_DOUBLE_EQ(t.duration_s, 412352e-9);
  EXPECT_TRUE(t.params.empty()); // ncu gives no argument values
  const auto& f = (*launches)[1];
  EXPECT_EQ(f.kernel, "fill");
  EXPECT_EQ(f.demangled, "fill");
  EXPECT_EQ(f.grid[0], 4096u);
  EXPECT_EQ(f.dynamic_smem, 1024u);
  EXPECT_EQ((*launches)[2].device, 1u);
  EXPECT_DOUBLE_EQ((*launches)[2].duration_s, 9216.5e-9);
}

TEST(NcuLaunches, ReadsALaunchCapturedFromNcuOnAnH200) {
  // tests/gpu/fixtures/ncu_raw_vector_add_h200.csv: ncu 2025.3.1's raw page, unedited (its units:
  // "ns", "byte/block" for shared memory, none for grid dims).
  std::ifstream in{std::string{WARPFORGE_SOURCE_DIR} + "/tests/gpu/fixtures/ncu_raw_vector_add_h200.csv"};
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  auto launches = ncu_csv_launches(text);
  ASSERT_TRUE(launches) << launches.error();
  ASSERT_EQ(launches->size(), 1u);
  const auto& l = launches->front();
  EXPECT_EQ(l.kernel, "vector_add");
  EXPECT_EQ(l.grid, (std::array<std::uint32_t, 3>{65536, 1, 1}));
  EXPECT_EQ(l.block, (std::array<std::uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(l.dynamic_smem, 0u);
  EXPECT_DOUBLE_EQ(l.duration_s, 58272e-9);
}

TEST(NcuLaunches, ReadsTheDetailsPageGroupingMetricRowsByID) {
  auto launches = ncu_csv_launches(fixture("ncu_observe_details.csv"));
  ASSERT_TRUE(launches) << launches.error();
  ASSERT_EQ(launches->size(), 2u);
  const auto& t = (*launches)[0];
  EXPECT_EQ(t.grid, (std::array<std::uint32_t, 3>{256, 256, 1})); // from "Grid Size"
  EXPECT_EQ(t.block, (std::array<std::uint32_t, 3>{32, 8, 1}));
  EXPECT_NEAR(t.duration_s, 412.35e-6, 1e-15);
  const auto& f = (*launches)[1];
  EXPECT_EQ(f.grid[0], 4096u);
  EXPECT_NEAR(f.duration_s, 3104e-9, 1e-18);
  EXPECT_EQ(f.dynamic_smem, 1020u); // 1.02 Kbyte
}

TEST(NcuLaunches, NoProfiledLaunchIsAnEmptyListAndBrokenOutputAnError) {
  auto none = ncu_csv_launches("==PROF== Connected to process 1 (/a)\n==WARNING== No kernels were profiled.\n");
  ASSERT_TRUE(none) << none.error();
  EXPECT_TRUE(none->empty());
  auto unknown_unit = fixture("ncu_observe_raw.csv");
  unknown_unit.replace(unknown_unit.find("\"ns\""), 4, "\"furlong\"");
  auto bad = ncu_csv_launches(unknown_unit);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("launch ID 0"), std::string::npos) << bad.error();
  EXPECT_NE(bad.error().find("furlong"), std::string::npos) << bad.error();
  auto unbalanced = ncu_csv_launches("\"ID\",\"Kernel Name\n");
  EXPECT_FALSE(unbalanced);
}

} // namespace
} // namespace warpforge::observe
