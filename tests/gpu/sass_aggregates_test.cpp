// Nsight Compute's smsp__sass_* values from CUPTI's per-instruction SASS counts
// (gpu/runtime/sass_aggregates.hpp), on hand-worked instructions.

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
  auto all = sass_counters_for({});
  return {all.begin(), all.end()};
}

// A global memory instruction executed `warps` times by `threads` threads in all, `bytes` per
// thread, moving `sectors` sectors.
sass_instruction memory(std::uint32_t pc, const char* kind, double warps, double threads, int bytes, double sectors) {
  sass_instruction i;
  i.pc_offset = pc;
  i.counters[kind] = warps;
  i.counters["smsp__sass_thread_inst_executed_op_global_pred_on"] = threads;
  i.counters["smsp__sass_inst_executed_op_memory_" + std::to_string(bytes * 8) + "b"] = warps;
  i.counters["smsp__sass_sectors_mem_global"] = sectors;
  return i;
}

TEST(SassCountersFor, NamesEachCounterOnceAndIgnoresOtherMetrics) {
  auto counters = sass_counters_for({local_ld, "dram__bytes_read.sum", local_ld, uniform_pct});
  const std::vector<std::string> want{"smsp__sass_inst_executed_op_local_ld", "smsp__sass_branch_targets_threads_uniform",
                                      "smsp__sass_branch_targets_threads_divergent"};
  EXPECT_EQ(counters, want);
  EXPECT_TRUE(is_sass_aggregate(ld_pct));
  EXPECT_FALSE(is_sass_aggregate("smsp__sass_inst_executed.sum"));
  // A byte ratio reads eight: its instructions' kind, their threads, sectors and five access sizes.
  EXPECT_EQ(sass_counters_for({ld_pct}).size(), 8u);
  EXPECT_EQ(every_counter().size(), 13u);
}

TEST(EvaluateSassAggregates, BytesPerSectorIsAShareOf32BytesOverTheLoadsOrTheStoresOnly) {
  const char* ld = "smsp__sass_inst_executed_op_global_ld";
  const char* st = "smsp__sass_inst_executed_op_global_st";
  std::vector<sass_instruction> code{
    // 10 warps of 32 threads loading 4 consecutive bytes each: 1280 bytes in 40 sectors (100%).
    memory(0x80, ld, 10, 320, 4, 40),
    // 10 warps loading 16 bytes each (LDG.128): 5120 bytes in 160 sectors (100%).
    memory(0x90, ld, 10, 320, 16, 160),
    // 10 warps storing 4 bytes per thread a row apart: 1280 bytes in 320 sectors (12.5%).
    memory(0xa0, st, 10, 320, 4, 320),
  };
  auto out = evaluate_sass_aggregates({ld_pct, st_pct}, code, every_counter());
  EXPECT_TRUE(out.missing.empty());
  EXPECT_DOUBLE_EQ(out.values.at(ld_pct), 100.0);
  EXPECT_DOUBLE_EQ(out.values.at(st_pct), 12.5);
  // Half the threads of a warp predicated off still move their sector: 16 threads x 4 bytes in 2.
  code.push_back(memory(0xb0, ld, 1, 16, 4, 4));
  out = evaluate_sass_aggregates({ld_pct}, code, every_counter());
  EXPECT_DOUBLE_EQ(out.values.at(ld_pct), 100.0 * (1280 + 5120 + 64) / (32.0 * (40 + 160 + 4)));
}

TEST(EvaluateSassAggregates, CountsAreSumsAndBranchesUniformIsAShareOfAllTargets) {
  sass_instruction spill;
  spill.counters["smsp__sass_inst_executed_op_local_st"] = 5;
  sass_instruction refill;
  refill.counters["smsp__sass_inst_executed_op_local_ld"] = 7;
  sass_instruction branch;
  branch.counters["smsp__sass_branch_targets_threads_uniform"] = 30;
  branch.counters["smsp__sass_branch_targets_threads_divergent"] = 10;
  sass_instruction loop = branch;
  loop.counters["smsp__sass_branch_targets_threads_divergent"] = 0;
  auto out = evaluate_sass_aggregates({local_ld, local_st, uniform_pct, "sm__cycles_active.avg"},
                                      {spill, refill, branch, loop}, every_counter());
  EXPECT_TRUE(out.missing.empty());
  ASSERT_EQ(out.values.size(), 3u);
  EXPECT_DOUBLE_EQ(out.values.at(local_ld), 7.0);
  EXPECT_DOUBLE_EQ(out.values.at(local_st), 5.0);
  EXPECT_DOUBLE_EQ(out.values.at(uniform_pct), 100.0 * 60 / 70);
  // No local instruction at all is a count of 0, not a gap.
  EXPECT_DOUBLE_EQ(evaluate_sass_aggregates({local_ld}, {branch}, every_counter()).values.at(local_ld), 0.0);
  // But no patched instruction at all is nothing measured: no 0 is made up.
  auto none = evaluate_sass_aggregates({local_ld, local_st, uniform_pct}, {}, every_counter());
  EXPECT_TRUE(none.values.empty());
  ASSERT_EQ(none.missing.size(), 3u);
  EXPECT_NE(none.missing.at(local_ld).find("no patched instruction"), std::string::npos);
}

TEST(EvaluateSassAggregates, AZeroDenominatorAnUnknownSizeOrACounterTheChipLacksIsAGapNamingWhy) {
  auto chip = every_counter();
  chip.erase("smsp__sass_inst_executed_op_local_ld");
  sass_instruction arithmetic; // executed, but neither a memory access nor a branch
  arithmetic.counters["smsp__sass_inst_executed"] = 64;
  auto out = evaluate_sass_aggregates({ld_pct, uniform_pct, local_ld}, {arithmetic}, chip);
  EXPECT_TRUE(out.values.empty());
  ASSERT_EQ(out.missing.size(), 3u);
  EXPECT_NE(out.missing.at(ld_pct).find("no sector moved"), std::string::npos) << out.missing.at(ld_pct);
  EXPECT_NE(out.missing.at(uniform_pct).find("no branch"), std::string::npos);
  EXPECT_NE(out.missing.at(local_ld).find("have no smsp__sass_inst_executed_op_local_ld"), std::string::npos)
    << out.missing.at(local_ld);

  sass_instruction sizeless = memory(0x40, "smsp__sass_inst_executed_op_global_st", 1, 32, 4, 4);
  sizeless.counters.erase("smsp__sass_inst_executed_op_memory_32b");
  auto unsized = evaluate_sass_aggregates({st_pct}, {sizeless}, every_counter());
  EXPECT_NE(unsized.missing.at(st_pct).find("access size of the instruction at 0x40"), std::string::npos)
    << unsized.missing.at(st_pct);
}

TEST(EvaluateSassAggregates, ABroadcastLoadHasNoValueBecauseNcuCountsUniqueBytes) {
  // examples/sgemm's A load on an H100: 16 threads of each half-warp read one word (two words,
  // two sectors per warp). Threads x 4 bytes is 128 bytes in 2 sectors; ncu counts the 8 unique
  // bytes (its 56.25% with the B load), which CUPTI's counters cannot tell.
  const char* ld = "smsp__sass_inst_executed_op_global_ld";
  auto out = evaluate_sass_aggregates({ld_pct}, {memory(0x70, ld, 1, 32, 4, 2)}, every_counter());
  ASSERT_TRUE(out.values.empty());
  EXPECT_NE(out.missing.at(ld_pct).find("threads of a warp asked for the same bytes (the instruction at 0x70 asked "
                                        "for 128 bytes in 2 sectors)"),
            std::string::npos)
    << out.missing.at(ld_pct);
}

} // namespace
} // namespace warpforge::gpu
