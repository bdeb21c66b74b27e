// Nsight Compute's smsp__sass_* values from CUPTI SASS counter sums
// (gpu/runtime/sass_aggregates.hpp), on hand-worked sums.

#include "gpu/runtime/sass_aggregates.hpp"

#include <gtest/gtest.h>

namespace warpforge::gpu {
namespace {

const std::string ld_pct = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct";
const std::string st_pct = "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct";
const std::string uniform_pct = "smsp__sass_average_branch_targets_threads_uniform.pct";
const std::string local_ld = "smsp__sass_inst_executed_op_local_ld.sum";
const std::string local_st = "smsp__sass_inst_executed_op_local_st.sum";

std::set<std::string> every_counter() {
  auto all = sass_counters_for({ld_pct, st_pct, uniform_pct, local_ld, local_st});
  return {all.begin(), all.end()};
}

TEST(SassCountersFor, NamesEachCounterOnceAndIgnoresOtherMetrics) {
  auto counters = sass_counters_for({ld_pct, "dram__bytes_read.sum", ld_pct, local_ld});
  const std::vector<std::string> want{"smsp__sass_data_bytes_mem_global_op_ld", "smsp__sass_sectors_mem_global_op_ld",
                                      "smsp__sass_inst_executed_op_local_ld"};
  EXPECT_EQ(counters, want);
  EXPECT_TRUE(is_sass_aggregate(uniform_pct));
  EXPECT_FALSE(is_sass_aggregate("smsp__sass_inst_executed.sum"));
  EXPECT_EQ(every_counter().size(), 8u);
}

TEST(EvaluateSassAggregates, BytesPerSectorIsAShareOf32BytesAndBranchesUniformOfAllTargets) {
  std::map<std::string, double> totals{
    // A warp of 32 threads loading 4 bytes each from consecutive addresses: 128 bytes in 4
    // sectors (100%); storing with a stride of 2 words: 128 bytes in 8 sectors (50%).
    {"smsp__sass_data_bytes_mem_global_op_ld", 128},    {"smsp__sass_sectors_mem_global_op_ld", 4},
    {"smsp__sass_data_bytes_mem_global_op_st", 128},    {"smsp__sass_sectors_mem_global_op_st", 8},
    {"smsp__sass_branch_targets_threads_uniform", 30},  {"smsp__sass_branch_targets_threads_divergent", 10},
    {"smsp__sass_inst_executed_op_local_ld", 7},        {"smsp__sass_inst_executed_op_local_st", 0},
  };
  auto out = evaluate_sass_aggregates({ld_pct, st_pct, uniform_pct, local_ld, local_st, "sm__cycles_active.avg"},
                                      totals, every_counter());
  EXPECT_TRUE(out.missing.empty());
  ASSERT_EQ(out.values.size(), 5u);
  EXPECT_DOUBLE_EQ(out.values.at(ld_pct), 100.0);
  EXPECT_DOUBLE_EQ(out.values.at(st_pct), 50.0);
  EXPECT_DOUBLE_EQ(out.values.at(uniform_pct), 75.0);
  EXPECT_DOUBLE_EQ(out.values.at(local_ld), 7.0);
  EXPECT_DOUBLE_EQ(out.values.at(local_st), 0.0) << "no local store is a count of 0, not a gap";
}

TEST(EvaluateSassAggregates, OneThreadStoringFourBytesUsesAnEighthOfItsSector) {
  auto out = evaluate_sass_aggregates(
    {st_pct}, {{"smsp__sass_data_bytes_mem_global_op_st", 4}, {"smsp__sass_sectors_mem_global_op_st", 1}},
    every_counter());
  EXPECT_DOUBLE_EQ(out.values.at(st_pct), 12.5);
}

TEST(EvaluateSassAggregates, AZeroDenominatorOrACounterTheChipLacksIsAGapNamingWhy) {
  std::map<std::string, double> totals{{"smsp__sass_data_bytes_mem_global_op_ld", 0},
                                       {"smsp__sass_sectors_mem_global_op_ld", 0},
                                       {"smsp__sass_branch_targets_threads_uniform", 0},
                                       {"smsp__sass_branch_targets_threads_divergent", 0}};
  auto chip = every_counter();
  chip.erase("smsp__sass_inst_executed_op_local_ld");
  auto out = evaluate_sass_aggregates({ld_pct, uniform_pct, local_ld}, totals, chip);
  EXPECT_TRUE(out.values.empty());
  ASSERT_EQ(out.missing.size(), 3u);
  EXPECT_NE(out.missing.at(ld_pct).find("smsp__sass_sectors_mem_global_op_ld is 0"), std::string::npos);
  EXPECT_NE(out.missing.at(uniform_pct).find("no branch"), std::string::npos);
  EXPECT_NE(out.missing.at(local_ld).find("have no smsp__sass_inst_executed_op_local_ld"), std::string::npos)
    << out.missing.at(local_ld);
}

} // namespace
} // namespace warpforge::gpu
