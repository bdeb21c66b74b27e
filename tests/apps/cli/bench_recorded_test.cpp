// bench prints what the run recorded, read back as typed records (apps/warpforge/cli/
// recorded_events.hpp), through the real binary on the stand-in GPUs (tests/gpu/fake_runner.cpp):
// each GPU's verdict, median and sample count in its JSON are the store's measurement rows.

#include "campaign_fixture.hpp"

#include <simdjson.h>

#include <map>

namespace warpforge::testing {
namespace {

using namespace std::chrono_literals;

class BenchRecorded : public campaign_fixture {};

// The store's measurement of each GPU (median seconds, samples), every branch of every job.
std::map<std::int64_t, storage::measurement_row> measurements_by_gpu(const std::filesystem::path& run) {
  std::map<std::int64_t, storage::measurement_row> out;
  auto db = storage::database::open_read_only(run / "warpforge.db");
  EXPECT_TRUE(db);
  if (!db)
    return out;
  auto summary = db->load_campaign_summary();
  EXPECT_TRUE(summary);
  for (const auto& job : summary->jobs) {
    const auto iterations = db->load_iterations(job.id);
    EXPECT_TRUE(iterations);
    for (const auto& iteration : iterations ? *iterations : std::vector<storage::iteration_row>{}) {
      const auto branches = db->load_branches(iteration.id);
      EXPECT_TRUE(branches);
      for (const auto& branch : branches ? *branches : std::vector<storage::branch_row>{}) {
        const auto measured = db->load_measurements(branch.id);
        EXPECT_TRUE(measured);
        for (const auto& m : measured ? *measured : std::vector<storage::measurement_row>{})
          out[m.gpu] = m;
      }
    }
  }
  return out;
}

TEST_F(BenchRecorded, ItsJsonGivesEachGpusTimeAsTheStoreRecordedIt) {
  const std::string problem = WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml";
  const auto pid = start({"bench", "--json", problem, "--run-root", (dir / "runs").string()});
  ASSERT_EQ(wait_exit_within(pid, 120s), 0) << stderr_text();
  const auto stored = measurements_by_gpu(run_dir());
  ASSERT_EQ(stored.size(), 2u) << "the stand-in host has two GPUs";

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const auto text = text_of("stdout.txt");
  ASSERT_EQ(parser.parse(text).get(doc), simdjson::SUCCESS) << text;
  simdjson::dom::array kernels;
  ASSERT_EQ(doc["kernels"].get(kernels), simdjson::SUCCESS) << text;
  std::size_t seen = 0;
  for (auto kernel : kernels) {
    std::int64_t gpu = -1;
    std::string_view outcome;
    double time_s = 0;
    std::int64_t samples = 0;
    ASSERT_EQ(kernel["gpu"].get(gpu), simdjson::SUCCESS);
    ASSERT_EQ(kernel["outcome"].get(outcome), simdjson::SUCCESS);
    ASSERT_EQ(kernel["time_s"].get(time_s), simdjson::SUCCESS);
    ASSERT_EQ(kernel["samples"].get(samples), simdjson::SUCCESS);
    ASSERT_TRUE(stored.contains(gpu)) << "GPU " << gpu;
    EXPECT_EQ(outcome, "passed");
    EXPECT_DOUBLE_EQ(time_s, stored.at(gpu).median_s) << "GPU " << gpu;
    EXPECT_EQ(samples, stored.at(gpu).samples) << "GPU " << gpu;
    ++seen;
  }
  EXPECT_EQ(seen, stored.size()) << "one row per GPU the baseline was measured on";
}

} // namespace
} // namespace warpforge::testing
