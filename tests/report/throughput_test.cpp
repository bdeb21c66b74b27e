// The throughput `warpforge report` reads back from a campaign's events (report/throughput.hpp,
// docs/report.md "Throughput"): candidates per GPU-hour and each GPU's shares, from what the
// engine wrote on gpu_released; an older run without those fields, or one without a GPU, says why
// instead of a number.

#include "report/throughput.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace warpforge::report {
namespace {

storage::event_row event(double ts, std::string type, std::optional<std::int64_t> gpu, std::string json) {
  storage::event_row e;
  e.ts = ts;
  e.type = std::move(type);
  e.gpu = gpu;
  e.json = std::move(json);
  return e;
}

TEST(throughput, candidates_per_gpu_hour_and_each_gpus_shares_come_from_its_releases) {
  const std::vector<storage::event_row> events{
    event(100, "campaign_started", std::nullopt, R"({"gpus":2})"),
    event(101, "gpu_released", 0, R"({"request_s":0.9,"lease_s":1.0,"kernel_s":0.8,"measured":3})"),
    event(102, "gpu_released", 1, R"({"request_s":1.9,"lease_s":2.0,"kernel_s":1.5,"measured":4})"),
    event(103, "gpu_released", 0, R"({"profile":true,"lease_s":0.5})"),
    event(104, "gpu_released", 1, R"({"out_of_service":"gpu.1 is out of service: test"})"),
    event(136, "campaign_finished", std::nullopt, R"({"measured":7})"),
  };
  const auto t = throughput_from_events(events);
  EXPECT_TRUE(t.not_measured_reason.empty()) << t.not_measured_reason;
  EXPECT_DOUBLE_EQ(t.wall_s, 36.0);
  EXPECT_EQ(t.gpu_count, 2u);
  EXPECT_EQ(t.measured, 7u);
  ASSERT_TRUE(t.per_gpu_hour());
  EXPECT_DOUBLE_EQ(*t.per_gpu_hour(), 7.0 / (36.0 * 2 / 3600.0)); // 350 per GPU-hour
  ASSERT_EQ(t.gpus.size(), 2u);
  EXPECT_EQ(t.gpus[0].races, 1u);
  EXPECT_EQ(t.gpus[0].profiles, 1u);
  EXPECT_DOUBLE_EQ(t.gpus[0].kernel_s, 0.8);
  EXPECT_DOUBLE_EQ(t.gpus[0].profile_s, 0.5);
  EXPECT_EQ(t.gpus[1].races, 1u) << "a race given back out of service measured nothing";
  EXPECT_DOUBLE_EQ(t.gpus[1].race_lease_s, 2.0);
}

TEST(throughput, a_resumed_campaign_counts_each_run_and_not_the_time_between) {
  const std::vector<storage::event_row> events{
    event(0, "campaign_started", std::nullopt, R"({"gpus":1})"),
    event(5, "gpu_released", 0, R"({"lease_s":4.0,"kernel_s":3.0,"measured":2})"),
    event(10, "campaign_interrupted", std::nullopt, "{}"),
    event(1000, "campaign_started", std::nullopt, R"({"gpus":1})"),
    event(1010, "gpu_released", 0, R"({"lease_s":9.0,"kernel_s":8.0,"measured":5})"),
  };
  const auto t = throughput_from_events(events); // still running: up to its last event
  EXPECT_DOUBLE_EQ(t.wall_s, 20.0);
  EXPECT_EQ(t.measured, 7u);
}

TEST(throughput, a_run_recorded_before_the_lease_fields_or_without_a_gpu_says_why) {
  const std::vector<storage::event_row> old{
    event(0, "campaign_started", std::nullopt, R"({"gpus":1})"),
    event(5, "gpu_released", 0, R"({"request_s":4.0})"),
    event(10, "campaign_finished", std::nullopt, "{}"),
  };
  const auto t = throughput_from_events(old);
  EXPECT_FALSE(t.per_gpu_hour());
  EXPECT_NE(t.not_measured_reason.find("not recorded"), std::string::npos) << t.not_measured_reason;
  const std::vector<storage::event_row> no_gpu{
    event(0, "campaign_started", std::nullopt, R"({"gpus":0})"),
    event(10, "campaign_finished", std::nullopt, "{}"),
  };
  const auto none = throughput_from_events(no_gpu);
  EXPECT_FALSE(none.per_gpu_hour());
  EXPECT_EQ(none.not_measured_reason, "no GPU in this campaign");
}

} // namespace
} // namespace warpforge::report
