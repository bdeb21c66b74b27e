// A deploy timed by observation, on a stand-in project whose "benchmark" is a STAND-IN program: a
// shell script that writes the launch log the injection library would write (deploy/observe/) for
// a file of several kernels, as the H100 transpose did: a champion that speeds up the named
// kernel and, through a #define the kernels share, slows two others (optimized 0.060 -> 0.070 ms,
// diagonal 0.062 -> 0.082 ms). Every kernel is compared; such a champion is refused naming them.

#include "stand_in_project.hpp"

#include "deploy/kernel_times.hpp"
#include "deploy/program_timing.hpp"

#include <cstdlib>

namespace warpforge::deploy {
namespace {

using testing::read_file;
using testing::write_file;

// Per run: copySharedMem once, transposeNaive twice (the named kernel), transposeOptimized and
// transposeDiagonal once; durations in ns, each run's jitter 0, 500 or 1000 ns (so every kernel's
// spread over three runs is 1000 ns). FAST halves transposeNaive; SHARED slows optimized and
// diagonal as the shared TILE_DIM did; NUDGED moves them by 300 ns, inside their noise.
constexpr std::string_view observed_bench = R"(n=$(cat .bench-count 2>/dev/null || echo 0); n=$((n + 1)); echo $n > .bench-count
j=$(( (n % 3) * 500 ))
naive=250000; optimized=60000; diagonal=62000
if grep -q FAST binary.txt; then naive=125000; fi
if grep -q SHARED binary.txt; then optimized=70000; diagonal=82000; fi
if grep -q NUDGED binary.txt; then optimized=60300; diagonal=61700; fi
launch() {
  echo "{\"seq\":$1,\"kernel\":\"_Z$2\",\"demangled\":\"$2(float*, const float*, int, int)\",\"grid\":[64,64,1],\"block\":[16,16,1],\"smem\":0,\"duration_ns\":$3,\"device\":0,\"params\":[]}"
}
{
  launch 0 copySharedMem $((40000 + j))
  launch 1 transposeNaive $((naive + j))
  launch 2 transposeNaive $((naive + j))
  launch 3 transposeOptimized $((optimized + j))
  launch 4 transposeDiagonal $((diagonal + j))
  echo '{"end":true,"launches":5,"dropped":0,"notes":[]}'
} > "$WARPFORGE_OBSERVE_OUT"
echo "timed run $n"
)";

class observed_deploy_test : public testing::stand_in_project {
protected:
  void SetUp() override {
    stand_in_project::SetUp();
    if (!observed_timing_available())
      GTEST_SKIP() << "this build has no deploy/observe/";
    // The program is a script: nothing loads the library, run_observed only needs it to exist.
    write_file(dir / "libstand_in_inject.so", "not a library");
    ::setenv("WARPFORGE_OBSERVE_INJECT", (dir / "libstand_in_inject.so").c_str(), 1);
    write_file(project / "observed_bench.sh", std::string{observed_bench});
  }
  void TearDown() override {
    ::unsetenv("WARPFORGE_OBSERVE_INJECT");
    stand_in_project::TearDown();
  }
  deploy_request observed_request(const std::string& speed) const {
    auto r = request(chosen(speed));
    r.target.timing = timing_source::observed;
    r.target.kernel = "transposeNaive";
    r.target.time = "sh observed_bench.sh";
    return r;
  }
  const kernel_change& row(const deploy_report& report, const std::string& kernel) const {
    for (const auto& r : report.kernels->rows)
      if (r.kernel == kernel + "(float*, const float*, int, int)")
        return r;
    ADD_FAILURE() << "no row for " << kernel;
    static const kernel_change none;
    return none;
  }
};

TEST_F(observed_deploy_test, a_champion_that_slows_other_kernels_is_refused_naming_them_and_rolled_back) {
  collecting_sink sink;
  auto report = run_deploy(observed_request("FAST SHARED"), sink);
  ASSERT_EQ(report.outcome, deploy_outcome::rolled_back) << report.reason;
  // The named kernel did get 2x faster (2 launches of 250.5 us -> 125.5 us at the median)...
  ASSERT_TRUE(report.before && report.after);
  EXPECT_NEAR(report.before->median, 501e-6, 1e-12);
  EXPECT_NEAR(report.after->median, 251e-6, 1e-12);
  // ...but the reason names each slower kernel with its numbers, and not the unchanged one.
  EXPECT_EQ(report.reason.rfind("other kernels got slower: ", 0), 0u) << report.reason;
  EXPECT_NE(report.reason.find("transposeOptimized(float*, const float*, int, int) 0.0605 -> 0.0705 ms (+16.5%, "
                               "noise 0.0010 ms)"),
            std::string::npos)
    << report.reason;
  EXPECT_NE(report.reason.find("transposeDiagonal(float*, const float*, int, int) 0.0625 -> 0.0825 ms (+32.0%"),
            std::string::npos)
    << report.reason;
  EXPECT_EQ(report.reason.find("copySharedMem"), std::string::npos) << report.reason;
  EXPECT_EQ(kernel_text(), testing::original_kernel);
  EXPECT_FALSE(marker_exists());
  // Every kernel's before and after is in the report and in the journal.
  ASSERT_TRUE(report.kernels && report.kernels->timed);
  EXPECT_EQ(row(report, "transposeOptimized").verdict, kernel_verdict::slower);
  EXPECT_EQ(row(report, "transposeDiagonal").verdict, kernel_verdict::slower);
  EXPECT_EQ(row(report, "copySharedMem").verdict, kernel_verdict::within_noise);
  EXPECT_EQ(row(report, "transposeNaive").verdict, kernel_verdict::faster);
  EXPECT_TRUE(row(report, "transposeNaive").named);
  EXPECT_EQ(report.kernels->rows.front().kernel, "transposeNaive(float*, const float*, int, int)") << "named first";
  auto journaled = comparison_in_journal(read_file(report.journal));
  ASSERT_TRUE(journaled) << journaled.error();
  ASSERT_TRUE(*journaled);
  EXPECT_EQ(**journaled, *report.kernels);
  // What `warpforge deploy` prints of it (docs/observe-deploy.md shows these lines).
  EXPECT_EQ(comparison_lines(**journaled),
            (std::vector<std::string>{
              "transposeNaive(float*, const float*, int, int) 0.5010 -> 0.2510 ms (-49.9%, noise 0.0020 ms): "
              "faster (the deployed kernel)",
              "copySharedMem(float*, const float*, int, int) 0.0405 -> 0.0405 ms (+0.0%, noise 0.0010 ms): "
              "within_noise",
              "transposeDiagonal(float*, const float*, int, int) 0.0625 -> 0.0825 ms (+32.0%, noise 0.0010 ms): "
              "slower",
              "transposeOptimized(float*, const float*, int, int) 0.0605 -> 0.0705 ms (+16.5%, noise 0.0010 ms): "
              "slower",
              "all kernels 0.6645 -> 0.4445 ms (-33.1%, noise 0.0050 ms): faster"}));
}

TEST_F(observed_deploy_test, a_champion_whose_other_kernels_stay_within_their_noise_is_accepted) {
  collecting_sink sink;
  auto report = run_deploy(observed_request("FAST NUDGED"), sink);
  ASSERT_EQ(report.outcome, deploy_outcome::accepted) << report.reason;
  ASSERT_TRUE(report.kernels && report.kernels->timed);
  EXPECT_EQ(row(report, "transposeOptimized").verdict, kernel_verdict::within_noise);
  EXPECT_EQ(row(report, "transposeDiagonal").verdict, kernel_verdict::within_noise);
  EXPECT_NEAR(row(report, "transposeOptimized").after->median - row(report, "transposeOptimized").before->median,
              300e-9, 1e-12)
    << "moved, but inside its 1000 ns spread";
  ASSERT_TRUE(report.kernels->total);
  EXPECT_EQ(report.kernels->total->verdict, kernel_verdict::faster);
  EXPECT_EQ(row(report, "transposeNaive").before->launches, 6) << "two a run, three runs";
  // The decide step's record (the store's deploy_steps row) lists every kernel.
  const auto& decide = report.steps[report.steps.size() - 2];
  ASSERT_EQ(decide.step, deploy_step::decide);
  EXPECT_NE(decide.detail.find("transposeDiagonal(float*, const float*, int, int) 0.0625 -> 0.0622 ms"),
            std::string::npos)
    << decide.detail;
}

TEST_F(observed_deploy_test, a_named_kernel_that_did_not_get_faster_is_refused_whatever_the_others_do) {
  collecting_sink sink;
  auto report = run_deploy(observed_request("NUDGED"), sink); // naive unchanged: no gain
  ASSERT_EQ(report.outcome, deploy_outcome::rolled_back);
  EXPECT_EQ(report.reason.rfind("no measurable gain: s ", 0), 0u) << report.reason;
  EXPECT_TRUE(report.kernels && report.kernels->timed) << "compared anyway, for the record";
}

TEST_F(observed_deploy_test, result_timing_says_other_kernels_were_not_timed) {
  collecting_sink sink;
  auto report = run_deploy(request(chosen("FAST")), sink); // the RESULT benchmark of the stand-in
  ASSERT_EQ(report.outcome, deploy_outcome::accepted) << report.reason;
  ASSERT_TRUE(report.kernels);
  EXPECT_FALSE(report.kernels->timed);
  EXPECT_TRUE(report.kernels->rows.empty()) << "no number where nothing was measured";
  EXPECT_EQ(comparison_lines(*report.kernels), std::vector<std::string>{std::string{untimed_note}});
  auto journaled = comparison_in_journal(read_file(report.journal));
  ASSERT_TRUE(journaled && *journaled) << (journaled ? "no kernels in the journal" : journaled.error());
  EXPECT_FALSE((*journaled)->timed);
  EXPECT_NE(read_file(report.journal).find("other kernels were not timed"), std::string::npos);
}

} // namespace
} // namespace warpforge::deploy
