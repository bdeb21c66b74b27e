// The profiling policy (gpu/profiling/metric_collection.hpp) on recorded answers: which Nsight
// names a set of schema keys needs, how a source's answer becomes schema keys and units, and
// when Nsight Compute is asked after CUPTI. The sources here are test doubles answering what the
// runner and ncu answer; the real ones are exercised on the GPU (gpu_profile_tests).

#include "gpu/profiling/metric_collection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace warpforge::gpu {
namespace {

// A source that answers what it was given, and remembers what it was asked.
class scripted_source final : public counter_source {
public:
  scripted_source(metric_source kind, expected<profile_result, std::string> answer)
      : kind_(kind), answer_(std::move(answer)) {}
  metric_source kind() const override { return kind_; }
  expected<profile_result, std::string> collect(const profile_request& request) override {
    asked.push_back(request.metrics);
    return answer_;
  }
  std::vector<std::vector<std::string>> asked;

private:
  metric_source kind_;
  expected<profile_result, std::string> answer_;
};

profile_result ok_with(std::map<std::string, double> values) {
  profile_result r;
  r.status = profile_status::ok;
  r.values = std::move(values);
  return r;
}

std::map<std::string, double> by_key(const metric_set& set) {
  std::map<std::string, double> out;
  for (const auto& v : set.values)
    out[v.key] = v.value;
  return out;
}

TEST(NsightNamesFor, NoKeysMeansEveryMeasuredMetricOfTheSchema) {
  const auto& schema = diagnosis::builtin_metric_schema();
  auto selection = nsight_names_for({}, schema);
  EXPECT_EQ(selection.names, schema.nsight_names());
  EXPECT_TRUE(selection.unknown_keys.empty());
}

TEST(NsightNamesFor, ADerivedKeyAsksForTheMeasuredMetricsItsFormulaReads) {
  const auto& schema = diagnosis::builtin_metric_schema();
  auto selection = nsight_names_for({"achieved_dram_bandwidth", "dram_throughput", "no_such_key"}, schema);
  // achieved_dram_bandwidth = dram_bytes / duration, dram_bytes = read + write; schema order.
  const std::vector<std::string> want{"gpu__time_duration.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                                      "dram__bytes_read.sum", "dram__bytes_write.sum"};
  EXPECT_EQ(selection.names, want);
  EXPECT_EQ(selection.unknown_keys, std::vector<std::string>{"no_such_key"});
}

TEST(MetricSetFrom, NsightBaseUnitsBecomeSchemaUnitsAndEveryGapIsNamed) {
  const auto& schema = diagnosis::builtin_metric_schema();
  const auto selection = nsight_names_for({"dram_throughput", "duration", "l2_hit_rate", "bogus"}, schema);
  auto r = ok_with({{"dram__throughput.avg.pct_of_peak_sustained_elapsed", 91.5},
                    {"gpu__time_duration.sum", 62080.0},
                    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 12.0}}); // not asked for
  r.missing = {{"lts__t_sector_hit_rate.pct", "not a metric of chip FAKE"}};
  auto set = metric_set_from(metric_source::cupti, r, selection, schema, "chip FAKE");
  EXPECT_EQ(set.source, metric_source::cupti);
  auto values = by_key(set);
  ASSERT_EQ(values.size(), 2u) << "only what was asked for";
  EXPECT_DOUBLE_EQ(values.at("dram_throughput"), 0.915);
  EXPECT_DOUBLE_EQ(values.at("duration"), 62080e-9);
  EXPECT_EQ(set.note.rfind("chip FAKE; 2 of 4 requested metrics have no value", 0), 0u) << set.note;
  EXPECT_NE(set.note.find("l2_hit_rate (lts__t_sector_hit_rate.pct): not a metric of chip FAKE"), std::string::npos)
    << set.note;
  EXPECT_NE(set.note.find("bogus: not a key of the metric schema"), std::string::npos) << set.note;
}

TEST(CollectMetrics, NcuIsAskedOnlyForWhatCuptiLeftOutAndTheSourceStaysCupti) {
  const auto& schema = diagnosis::builtin_metric_schema();
  scripted_source cupti{metric_source::cupti, ok_with({{"gpu__time_duration.sum", 1000.0}})};
  scripted_source ncu{metric_source::ncu, ok_with({{"dram__throughput.avg.pct_of_peak_sustained_elapsed", 50.0}})};
  auto set = collect_metrics({}, {"duration", "dram_throughput"}, cupti, &ncu, schema);
  EXPECT_EQ(set.source, metric_source::cupti);
  ASSERT_EQ(ncu.asked.size(), 1u);
  EXPECT_EQ(ncu.asked[0], std::vector<std::string>{"dram__throughput.avg.pct_of_peak_sustained_elapsed"});
  auto values = by_key(set);
  EXPECT_DOUBLE_EQ(values.at("dram_throughput"), 0.5);
  EXPECT_DOUBLE_EQ(values.at("duration"), 1e-6);
  EXPECT_NE(set.note.find("1 supplied"), std::string::npos) << set.note;
}

TEST(CollectMetrics, WithTheSupplementSkippedNcuIsNotStartedAndTheGapIsNamed) {
  const auto& schema = diagnosis::builtin_metric_schema();
  scripted_source cupti{metric_source::cupti, ok_with({{"gpu__time_duration.sum", 1000.0}})};
  scripted_source ncu{metric_source::ncu, ok_with({{"dram__throughput.avg.pct_of_peak_sustained_elapsed", 50.0}})};
  auto set = collect_metrics({}, {"duration", "dram_throughput"}, cupti, &ncu, schema, ncu_supplement::skip);
  EXPECT_TRUE(ncu.asked.empty()) << "ncu's start-up is what skipping saves";
  EXPECT_EQ(set.source, metric_source::cupti);
  EXPECT_DOUBLE_EQ(by_key(set).at("duration"), 1e-6);
  EXPECT_FALSE(by_key(set).contains("dram_throughput"));
  EXPECT_NE(set.note.find("ncu was not asked for this profile"), std::string::npos) << set.note;
}

TEST(CollectMetrics, WithTheSupplementSkippedNcuIsStillTheFallbackWhenCuptiCannotProfile) {
  const auto& schema = diagnosis::builtin_metric_schema();
  profile_result restricted;
  restricted.status = profile_status::counters_unavailable;
  scripted_source cupti{metric_source::cupti, restricted};
  scripted_source ncu{metric_source::ncu, ok_with({{"gpu__time_duration.sum", 2000.0}})};
  auto set = collect_metrics({}, {"duration"}, cupti, &ncu, schema, ncu_supplement::skip);
  ASSERT_EQ(ncu.asked.size(), 1u);
  EXPECT_EQ(set.source, metric_source::ncu);
}

TEST(CollectMetrics, RestrictedCountersFallBackToNcuAndSaySo) {
  const auto& schema = diagnosis::builtin_metric_schema();
  profile_result restricted;
  restricted.status = profile_status::counters_unavailable;
  restricted.note = "RmProfilingAdminOnly=1";
  scripted_source cupti{metric_source::cupti, restricted};
  scripted_source ncu{metric_source::ncu, ok_with({{"gpu__time_duration.sum", 2000.0}})};
  auto set = collect_metrics({}, {"duration"}, cupti, &ncu, schema);
  EXPECT_EQ(set.source, metric_source::ncu);
  EXPECT_DOUBLE_EQ(by_key(set).at("duration"), 2e-6);
  EXPECT_NE(set.note.find("CUPTI: counters_unavailable: RmProfilingAdminOnly=1"), std::string::npos) << set.note;
}

TEST(CollectMetrics, AKernelThatFailedUnderTheProfilerIsNotProfiledAgainByNcu) {
  const auto& schema = diagnosis::builtin_metric_schema();
  profile_result faulted;
  faulted.status = profile_status::failed;
  faulted.note = "illegal address";
  faulted.runner_exits = true;
  scripted_source cupti{metric_source::cupti, faulted};
  scripted_source ncu{metric_source::ncu, ok_with({})};
  auto set = collect_metrics({}, {"duration"}, cupti, &ncu, schema);
  EXPECT_FALSE(set.source.has_value());
  EXPECT_TRUE(set.values.empty());
  EXPECT_TRUE(ncu.asked.empty());
  EXPECT_NE(set.note.find("the kernel itself failed under the profiler"), std::string::npos) << set.note;
}

TEST(CollectMetrics, WithoutNcuTheNoteSaysWhereItWasLookedFor) {
  const auto& schema = diagnosis::builtin_metric_schema();
  scripted_source cupti{metric_source::cupti, expected<profile_result, std::string>{unexpected{std::string{"no runner"}}}};
  auto set = collect_metrics({}, {"duration"}, cupti, nullptr, schema);
  EXPECT_TRUE(set.values.empty());
  EXPECT_NE(set.note.find("ncu not found on PATH or in the CUDA home's bin/"), std::string::npos) << set.note;
}


TEST(CollectMetrics, ToolCuptiNeverStartsNcuWhenCuptiAnswersEveryMetric) {
  const auto& schema = diagnosis::builtin_metric_schema();
  // What the runner answers now: counters, a launch attribute and a SASS aggregate.
  scripted_source cupti{metric_source::cupti, ok_with({{"gpu__time_duration.sum", 1000.0},
                                                       {"launch__registers_per_thread", 32.0},
                                                       {"smsp__sass_inst_executed_op_local_ld.sum", 0.0}})};
  scripted_source ncu{metric_source::ncu, ok_with({{"gpu__time_duration.sum", 9.0}})};
  for (auto supplement : {ncu_supplement::ask, ncu_supplement::skip}) {
    auto set = collect_metrics({}, {"duration", "registers_per_thread", "local_load_instructions"}, cupti, &ncu, schema,
                               supplement, config::profile_tool::cupti);
    EXPECT_EQ(set.source, metric_source::cupti);
    auto values = by_key(set);
    EXPECT_DOUBLE_EQ(values.at("registers_per_thread"), 32.0);
    EXPECT_DOUBLE_EQ(values.at("local_load_instructions"), 0.0);
    EXPECT_EQ(set.note.find("no value"), std::string::npos) << set.note;
  }
  EXPECT_TRUE(ncu.asked.empty());
  EXPECT_EQ(cupti.asked.size(), 2u);
}

TEST(CollectMetrics, ToolNcuAsksNcuForEverythingAndNotCupti) {
  const auto& schema = diagnosis::builtin_metric_schema();
  scripted_source cupti{metric_source::cupti, ok_with({{"gpu__time_duration.sum", 1000.0}})};
  scripted_source ncu{metric_source::ncu, ok_with({{"gpu__time_duration.sum", 3000.0},
                                                   {"launch__registers_per_thread", 40.0}})};
  auto set = collect_metrics({}, {"duration", "registers_per_thread"}, cupti, &ncu, schema, ncu_supplement::skip,
                             config::profile_tool::ncu);
  EXPECT_EQ(set.source, metric_source::ncu);
  EXPECT_TRUE(cupti.asked.empty());
  ASSERT_EQ(ncu.asked.size(), 1u);
  const std::vector<std::string> both{"gpu__time_duration.sum", "launch__registers_per_thread"};
  std::vector<std::string> asked = ncu.asked[0];
  std::sort(asked.begin(), asked.end());
  EXPECT_EQ(asked, both);
  EXPECT_DOUBLE_EQ(by_key(set).at("duration"), 3e-6);
  EXPECT_DOUBLE_EQ(by_key(set).at("registers_per_thread"), 40.0);
}

TEST(CollectMetrics, ToolNcuFallsBackToCuptiWhenNcuIsMissingOrCannotProfile) {
  const auto& schema = diagnosis::builtin_metric_schema();
  scripted_source cupti{metric_source::cupti, ok_with({{"gpu__time_duration.sum", 1000.0}})};
  auto absent = collect_metrics({}, {"duration"}, cupti, nullptr, schema, ncu_supplement::skip, config::profile_tool::ncu);
  EXPECT_EQ(absent.source, metric_source::cupti);
  EXPECT_NE(absent.note.find("tool = \"ncu\", but ncu was not found"), std::string::npos) << absent.note;

  profile_result busy;
  busy.status = profile_status::failed;
  busy.note = "ERR_NVGPUCTRBUSY";
  scripted_source ncu{metric_source::ncu, busy};
  auto set = collect_metrics({}, {"duration"}, cupti, &ncu, schema, ncu_supplement::skip, config::profile_tool::ncu);
  EXPECT_EQ(set.source, metric_source::cupti);
  EXPECT_NE(set.note.find("ncu: failed: ERR_NVGPUCTRBUSY; values from the runner's CUPTI"), std::string::npos)
    << set.note;
  EXPECT_EQ(cupti.asked.size(), 2u);
}

TEST(CollectMetrics, ToolNcuDoesNotReprofileAKernelThatFailedUnderNcu) {
  const auto& schema = diagnosis::builtin_metric_schema();
  profile_result faulted;
  faulted.status = profile_status::failed;
  faulted.runner_exits = true;
  scripted_source cupti{metric_source::cupti, ok_with({{"gpu__time_duration.sum", 1000.0}})};
  scripted_source ncu{metric_source::ncu, faulted};
  auto set = collect_metrics({}, {"duration"}, cupti, &ncu, schema, ncu_supplement::skip, config::profile_tool::ncu);
  EXPECT_FALSE(set.source.has_value());
  EXPECT_TRUE(cupti.asked.empty());
}

// Several launches on one GPU: their CUPTI attempts are one batch of the runner's.

profile_request launch_of(const std::string& entry) {
  profile_request r;
  r.run.kernels = {{"/tmp/" + entry + ".cubin", entry, {{1, 1, 1}, {32, 1, 1}, 0}}};
  r.run.seeds = {7};
  return r;
}

TEST(CollectMetricsBatch, ToolCuptiAsksTheRunnerOnceForEveryLaunchAndAnswersEachInOrder) {
  const auto& schema = diagnosis::builtin_metric_schema();
  std::vector<std::vector<std::string>> asked; // the entries of each batch the runner got
  ask_runner_batch ask = [&](const std::vector<profile_request>& requests)
    -> expected<std::vector<profile_result>, runner_error> {
    std::vector<std::string> entries;
    std::vector<profile_result> results;
    for (const auto& r : requests) {
      entries.push_back(r.run.kernels.front().entry);
      EXPECT_EQ(r.metrics, (std::vector<std::string>{"gpu__time_duration.sum"}));
      results.push_back(ok_with({{"gpu__time_duration.sum", r.run.kernels.front().entry == "fast" ? 1000.0 : 3000.0}}));
    }
    asked.push_back(entries);
    return results;
  };
  scripted_source ncu{metric_source::ncu, ok_with({})};
  auto sets = collect_metrics(std::vector{launch_of("slow"), launch_of("fast")}, {"duration"}, ask, &ncu, schema);
  ASSERT_EQ(asked.size(), 1u) << "one request for the batch";
  EXPECT_EQ(asked.front(), (std::vector<std::string>{"slow", "fast"}));
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_DOUBLE_EQ(by_key(sets[0]).at("duration"), 3e-6);
  EXPECT_DOUBLE_EQ(by_key(sets[1]).at("duration"), 1e-6);
  EXPECT_EQ(sets[0].source, metric_source::cupti);
  EXPECT_TRUE(ncu.asked.empty());
}

TEST(CollectMetricsBatch, ABatchTheRunnerCouldNotAnswerFallsBackToNcuForEachLaunch) {
  const auto& schema = diagnosis::builtin_metric_schema();
  int asked = 0;
  ask_runner_batch ask = [&](const std::vector<profile_request>&) -> expected<std::vector<profile_result>, runner_error> {
    ++asked;
    runner_error none;
    none.kind = runner_error_kind::spawn_failed;
    none.detail = "no runner";
    return unexpected(none);
  };
  scripted_source ncu{metric_source::ncu, ok_with({{"gpu__time_duration.sum", 2000.0}})};
  auto sets = collect_metrics(std::vector{launch_of("a"), launch_of("b"), launch_of("c")}, {"duration"}, ask, &ncu, schema);
  EXPECT_EQ(asked, 1);
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(ncu.asked.size(), 3u) << "ncu profiles one launch at a time";
  for (const auto& set : sets) {
    EXPECT_EQ(set.source, metric_source::ncu);
    EXPECT_NE(set.note.find("no runner"), std::string::npos) << set.note;
  }
}

TEST(CollectMetricsBatch, ToolNcuAsksNcuForEachLaunchAndTheRunnerNever) {
  const auto& schema = diagnosis::builtin_metric_schema();
  int asked = 0;
  ask_runner_batch ask = [&](const std::vector<profile_request>&) -> expected<std::vector<profile_result>, runner_error> {
    ++asked;
    return std::vector<profile_result>{};
  };
  scripted_source ncu{metric_source::ncu, ok_with({{"gpu__time_duration.sum", 2000.0}})};
  auto sets = collect_metrics(std::vector{launch_of("a"), launch_of("b")}, {"duration"}, ask, &ncu, schema,
                              ncu_supplement::ask, config::profile_tool::ncu);
  EXPECT_EQ(asked, 0);
  EXPECT_EQ(ncu.asked.size(), 2u);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[1].source, metric_source::ncu);
}

} // namespace
} // namespace warpforge::gpu
