#include "calibrate/engine/counter_check.hpp"
#include "calibrate/engine/bench_steps.hpp"

#include "calibrate/engine/run_files.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace warpforge::calibrate {
namespace {

namespace fs = std::filesystem;

// `ncu --clock-control none --csv --page raw --print-units base --metrics ... --launch-count 1`
// as Nsight Compute prints it (layout of tests/diagnosis/fixtures/ncu_raw_copy_transpose.csv):
// the program's own output and ==PROF== lines, header, units row, one row per launch.
constexpr std::string_view identity_header =
  R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC")";
constexpr std::string_view identity_units = R"("","","","","","","","","","","")";
constexpr std::string_view stream_identity =
  R"csv("0","51234","dram_bandwidth","gpu-node","wf_stream_kernel(const uint4 *, unsigned long, int, unsigned int *, wf_window *)","1","7","(512, 1, 1)","(528, 1, 1)","0","9.0")csv";

// The dram_bandwidth benchmark's timed launch: bytes read, its duration (nanoseconds, ncu's base
// unit for time) and the throughput percentage.
std::string dram_csv(std::string_view bytes, std::string_view duration_ns) {
  return "# device: NVIDIA H100 80GB HBM3, sm_90, 132 SMs\n"
         "==PROF== Connected to process 51234 (/cache/dram_bandwidth)\n"
         "==PROF== Profiling \"wf_stream_kernel\" - 0: 0%....50%....100% - 4 passes\n"
         "RESULT: value=3012.7 sm_clock_mhz=1980\n"
         "==PROF== Disconnected from process 51234\n" +
         std::string{identity_header} +
         R"(,"dram__bytes_read.sum","gpu__time_duration.sum","dram__throughput.avg.pct_of_peak_sustained_elapsed")" +
         "\n" + std::string{identity_units} + R"(,"byte","nsecond","%")" + "\n" + std::string{stream_identity} +
         ",\"" + std::string{bytes} + "\",\"" + std::string{duration_ns} + R"(","91.48")" + "\n";
}

parameter dram_bandwidth() {
  parameter p;
  p.name = "dram_bandwidth";
  p.unit = "GB/s";
  p.validation_metrics = {"dram__bytes_read.sum", "gpu__time_duration.sum",
                          "dram__throughput.avg.pct_of_peak_sustained_elapsed"};
  p.rederive = counter_formula{"dram__bytes_read.sum", "gpu__time_duration.sum", 1e-9};
  return p;
}

parameter smem_latency() {
  parameter p;
  p.name = "smem_latency";
  p.unit = "cycles";
  p.validation_metrics = {"smsp__inst_executed_op_shared_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"};
  return p;
}

std::string smem_csv(std::string_view loads, std::string_view conflicts) {
  return std::string{identity_header} +
         R"(,"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","smsp__inst_executed_op_shared_ld.sum")" +
         "\n" + std::string{identity_units} + R"(,"","inst")" + "\n" +
         R"csv("0","777","smem_latency","gpu-node","wf_latency_kernel<smem_op>(smem_op::params, unsigned int *, wf_window *)","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0",")csv" +
         std::string{conflicts} + "\",\"" + std::string{loads} + "\"\n";
}

TEST(counter_verdict, re_derives_a_bandwidth_from_the_launchs_bytes_and_duration) {
  // 10,737,418,240 bytes in 3,560,000 ns = 3016.1 GB/s against the measured 3012.7: ratio 1.00114.
  const auto verdict = counter_verdict(dram_csv("10,737,418,240", "3,560,000"), dram_bandwidth(), 3012.7);
  EXPECT_EQ(verdict.rfind("PASS (re-derived 3016.13 GB/s = dram__bytes_read.sum x 1e-09 / gpu__time_duration.sum, "
                          "ratio 1.00114 to the measured 3012.7; ncu: ", 0), 0u) << verdict;
  EXPECT_NE(verdict.find("dram__throughput.avg.pct_of_peak_sustained_elapsed=91.48 %"), std::string::npos) << verdict;
}

TEST(counter_verdict, a_value_the_counters_disagree_with_by_more_than_5_percent_is_a_mismatch) {
  // 3,400,000 ns: 3158.1 GB/s, ratio 1.0483 (inside); 3,300,000 ns: 3253.8 GB/s, ratio 1.08002 (beyond).
  EXPECT_EQ(counter_verdict(dram_csv("10,737,418,240", "3,400,000"), dram_bandwidth(), 3012.7).rfind("PASS", 0), 0u);
  const auto off = counter_verdict(dram_csv("10,737,418,240", "3,300,000"), dram_bandwidth(), 3012.7);
  EXPECT_EQ(off.rfind("MISMATCH: re-derived 3253.76 GB/s", 0), 0u) << off;
  EXPECT_NE(off.find("ratio 1.08002 to the measured 3012.7 (beyond ±5%)"), std::string::npos) << off;
}

TEST(counter_verdict, a_formula_whose_counter_ncu_did_not_give_is_a_mismatch_naming_it) {
  parameter p = dram_bandwidth();
  p.rederive->over = "gpu__time_duration.max";
  const auto verdict = counter_verdict(dram_csv("10,737,418,240", "3,560,000"), p, 3012.7);
  EXPECT_EQ(verdict.rfind("MISMATCH: not re-derived: ncu gave no value for gpu__time_duration.max", 0), 0u)
      << verdict;
}

TEST(counter_verdict, re_derives_a_throughput_from_thread_instructions_over_the_sms_cycles) {
  parameter p;
  p.name = "fp16_hfma2_throughput";
  p.unit = "ops/clk/SM";
  p.validation_metrics = {"sm__sass_thread_inst_executed_op_hfma_pred_on.sum", "sm__cycles_elapsed.sum"};
  p.rederive = counter_formula{"sm__sass_thread_inst_executed_op_hfma_pred_on.sum", "sm__cycles_elapsed.sum", 2};
  // 60,000 HFMA2 x 2 ops / 500 SM-cycles = 240 ops/clk/SM.
  const std::string csv = std::string{identity_header} +
                          R"(,"sm__cycles_elapsed.sum","sm__sass_thread_inst_executed_op_hfma_pred_on.sum")" + "\n" +
                          std::string{identity_units} + R"(,"cycle","inst")" + "\n" + std::string{stream_identity} +
                          R"(,"500","60,000")" + "\n";
  const auto verdict = counter_verdict(csv, p, 239.9);
  EXPECT_EQ(verdict.rfind("PASS (re-derived 240 ops/clk/SM", 0), 0u) << verdict;
  EXPECT_NE(verdict.find("ratio 1.00042"), std::string::npos) << verdict;
}

TEST(counter_verdict, a_zero_count_is_a_mismatch_but_a_zero_conflict_count_is_a_finding) {
  const auto zero_loads = counter_verdict(smem_csv("0", "0"), smem_latency(), 30);
  EXPECT_EQ(zero_loads.rfind("MISMATCH: smsp__inst_executed_op_shared_ld.sum = 0", 0), 0u) << zero_loads;
  EXPECT_NE(zero_loads.find("wf_latency_kernel<smem_op>"), std::string::npos) << "names the kernel profiled";
  const auto conflict_free = counter_verdict(smem_csv("1,048,576", "0"), smem_latency(), 30);
  EXPECT_EQ(conflict_free.rfind("PASS", 0), 0u) << conflict_free;
  EXPECT_NE(conflict_free.find("smsp__inst_executed_op_shared_ld.sum=1.04858e+06 inst"), std::string::npos)
    << conflict_free;
}

TEST(counter_verdict, a_metric_without_a_value_or_an_unreadable_csv_is_not_validated) {
  const auto na = counter_verdict(smem_csv("n/a", "0"), smem_latency(), 30);
  EXPECT_EQ(na.rfind("not validated: ncu reported no value for smsp__inst_executed_op_shared_ld.sum ('n/a')", 0), 0u)
    << na;
  auto other = smem_latency();
  other.validation_metrics.push_back("lts__t_sector_hit_rate.pct");
  EXPECT_EQ(counter_verdict(smem_csv("5", "0"), other, 30).rfind("not validated: ncu reported no value for lts__", 0),
            0u);
  EXPECT_EQ(counter_verdict("==PROF== nothing\n", smem_latency(), 30).rfind("not validated: ncu's CSV", 0), 0u);
}

TEST(count_launches, counts_the_rows_of_the_launch_list) {
  std::string csv = std::string{identity_header} + R"(,"gpu__time_duration.sum")" + "\n" +
                    std::string{identity_units} + R"(,"nsecond")" + "\n";
  EXPECT_FALSE(count_launches(csv)) << "no launch at all";
  for (int i = 0; i < 3; ++i)
    csv += std::string{stream_identity} + R"(,"1,234")" + "\n";
  ASSERT_TRUE(count_launches(csv));
  EXPECT_EQ(*count_launches(csv), 3u);
}

TEST(ncu_refusal, restricted_counters_and_errors_are_named) {
  const auto restricted = ncu_refusal(
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on "
    "the target device 0.\n");
  ASSERT_TRUE(restricted);
  EXPECT_NE(restricted->find("restricted"), std::string::npos) << *restricted;
  const auto failed = ncu_refusal("==PROF== Connected\n==ERROR== The application returned an error code (1).\n");
  ASSERT_TRUE(failed);
  EXPECT_EQ(*failed, "not validated: ncu: ==ERROR== The application returned an error code (1).");
  EXPECT_FALSE(ncu_refusal("==PROF== Disconnected from process 1\n"));
}

TEST(ncu_arguments, never_lock_clocks_and_profile_one_launch_after_the_skip) {
  const auto args = ncu_profile_arguments({"a__x.sum", "b__y.pct"}, 4, "/d/ncu.csv", "/bin/bench");
  const std::string line = [&] {
    std::string out;
    for (const auto& a : args)
      out += a + " ";
    return out;
  }();
  EXPECT_NE(line.find("--clock-control none "), std::string::npos) << line;
  EXPECT_NE(line.find("--metrics a__x.sum,b__y.pct --launch-skip 4 --launch-count 1 /bin/bench "), std::string::npos)
    << line;
  EXPECT_EQ(args.back(), "/bin/bench");
  const auto count = ncu_count_arguments("/d/c.csv", "/bin/bench");
  EXPECT_NE(std::find(count.begin(), count.end(), "none"), count.end());
  EXPECT_EQ(count.back(), "/bin/bench");
}

// A stand-in ncu on the real spawning path: it writes fixed CSV to its --log-file (three launches
// when counting, the dram row when profiling) and keeps its arguments and CUDA_VISIBLE_DEVICES.
class stand_in_ncu : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("wf-counter-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string count_csv = std::string{identity_header} + R"(,"gpu__time_duration.sum")" + "\n" +
                                  std::string{identity_units} + R"(,"nsecond")" + "\n" +
                                  std::string{stream_identity} + R"(,"100")" + "\n" + std::string{stream_identity} +
                                  R"(,"200")" + "\n" + std::string{stream_identity} + R"(,"300")" + "\n";
    ASSERT_TRUE(write_file_atomically(dir_ / "count.csv", count_csv));
    ASSERT_TRUE(write_file_atomically(dir_ / "profile.csv", dram_csv("10,737,418,240", "3,560,000")));
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path script(const std::string& body) {
    const auto path = dir_ / "ncu";
    const std::string text = "#!/bin/sh\nD='" + dir_.string() + "'\n" + body;
    EXPECT_TRUE(write_file_atomically(path, text));
    ::chmod(path.c_str(), 0755);
    return path;
  }
  // Writes the count or profile CSV to the --log-file argument.
  fs::path answering_ncu() {
    return script("echo \"$CUDA_VISIBLE_DEVICES $*\" >> \"$D/args.txt\"\n"
                  "log=''; prev=''; skip=''\n"
                  "for a in \"$@\"; do [ \"$prev\" = --log-file ] && log=$a; [ \"$prev\" = --launch-skip ] && skip=$a; "
                  "prev=$a; done\n"
                  "if [ -n \"$skip\" ]; then cp \"$D/profile.csv\" \"$log\"; else cp \"$D/count.csv\" \"$log\"; fi\n");
  }

  fs::path dir_;
};

TEST_F(stand_in_ncu, counts_the_launches_then_profiles_the_last_one_pinned_to_the_gpu) {
  // As the GPU's worker asks it (actors/gpu_worker.cpp, counter_order), under the lock it holds.
  const gpu_slot gpu{0, "GPU-counter-test-" + std::to_string(::getpid()), "NVIDIA H100 80GB HBM3", "sm_90"};
  counter_check_request request{answering_ncu(), "/bin/bench-stand-in", gpu.uuid, dir_ / "jobs" / "dram_bandwidth",
                                std::chrono::milliseconds{2000}};
  const auto verdict = validate_with_ncu(request, dram_bandwidth(), 3012.7);
  EXPECT_EQ(verdict.rfind("PASS (re-derived 3016.13 GB/s", 0), 0u) << verdict;
  const auto args = read_whole_file(dir_ / "args.txt").value_or("");
  const auto second = args.find('\n') + 1;
  ASSERT_NE(second, 0u) << args;
  EXPECT_EQ(args.rfind(gpu.uuid + " --clock-control none", 0), 0u) << args;
  EXPECT_NE(args.find("--metrics gpu__time_duration.sum /bin/bench-stand-in\n"), std::string::npos) << args;
  EXPECT_NE(args.find("--launch-skip 2 --launch-count 1 /bin/bench-stand-in", second), std::string::npos) << args;
  EXPECT_TRUE(fs::exists(dir_ / "jobs" / "dram_bandwidth" / ncu_profile_csv));
}

TEST_F(stand_in_ncu, an_ncu_past_its_timeout_is_killed_and_not_validated) {
  counter_check_request request{script("exec sleep 5\n"), "/bin/bench", "GPU-x", dir_, std::chrono::milliseconds{200}};
  const auto verdict = validate_with_ncu(request, dram_bandwidth(), 3000);
  EXPECT_EQ(verdict, "not validated: ncu ran past 0.2 s and was killed");
}

TEST_F(stand_in_ncu, restricted_counters_a_failing_or_a_missing_ncu_are_not_validated) {
  counter_check_request request{
    script("echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
           "Counters on the target device 0.'\nexit 0\n"),
    "/bin/bench", "GPU-x", dir_, std::chrono::milliseconds{2000}};
  EXPECT_NE(validate_with_ncu(request, dram_bandwidth(), 3000).find("counters are restricted"), std::string::npos);
  request.ncu = script("exit 3\n");
  EXPECT_EQ(validate_with_ncu(request, dram_bandwidth(), 3000).rfind("not validated: ncu ended with exit code 3", 0),
            0u);
  request.ncu = dir_ / "no-such-ncu";
  EXPECT_EQ(validate_with_ncu(request, dram_bandwidth(), 3000).rfind("not validated: cannot start ncu", 0), 0u);
}

} // namespace
} // namespace warpforge::calibrate
