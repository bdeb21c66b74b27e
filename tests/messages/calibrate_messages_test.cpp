// The calibrate campaign's messages survive CAF's binary serialisation (what the middleman uses
// when a gpu_worker lives on another host): the programs a worker runs, the counter checks, and
// the calibrator's order, end and job results. A field an inspect forgot comes back defaulted.

#include "messages/type_ids.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include <gtest/gtest.h>

namespace warpforge::messages {
namespace {

class CalibrateMessages : public ::testing::Test {
protected:
  static caf::actor_system_config& config() {
    static caf::actor_system_config cfg = [] {
      caf::actor_system_config c;
      c.add_message_types<caf::id_block::warpforge>();
      c.set("scheduler.max-threads", 1);
      return c;
    }();
    return cfg;
  }
  caf::actor_system system{config()};

  template <class T>
  T round_trip(T value) {
    std::vector<char> buffer;
    caf::binary_serializer sink{system, buffer};
    if (auto err = sink(value))
      ADD_FAILURE() << "serialising failed: " << system.render(err);
    T copy;
    caf::binary_deserializer source{system, buffer};
    if (auto err = source(copy))
      ADD_FAILURE() << "deserialising failed: " << system.render(err);
    return copy;
  }
};

calibrate::parameter_result sample_result() {
  calibrate::parameter_result r;
  r.name = "l2_size";
  r.unit = "MiB";
  r.result = calibrate::status::pass_with_note;
  r.stats.n = 9;
  r.stats.discarded = 1;
  r.stats.invalid = 0;
  r.stats.median = 50.0;
  r.stats.mean = 49.8;
  r.stats.stddev = 0.4;
  r.stats.cv = 0.008;
  r.stats.ci95_low = 49.5;
  r.stats.ci95_high = 50.2;
  r.stats.ci_level = 0.96;
  r.stats.max_clock_mhz = 1980;
  r.value = 50.0;
  r.known = calibrate::known_value{"sm_90", 50, "Hopper whitepaper, table 3"};
  r.sass_verdict = "OK (LDG)";
  r.counter_verdict = "not validated: no ncu";
  r.arch = "sm_90";
  r.gpu_name = "NVIDIA H100 80GB HBM3";
  r.notes = {"1 trial(s) discarded as throttled"};
  r.curve = {{1 << 20, 200}, {64 << 20, 600}};
  r.benchmark_file = "kernels/l2_size.cu";
  r.measured_at = "2026-11-27T12:00:00Z";
  return r;
}

TEST_F(CalibrateMessages, AProgramOrderItsTrialsAndACounterCheckRoundTrip) {
  program_order order{"calibrate l2_size", "/cache/l2_size", {"--sweep"}, 10, 60, "/run/jobs/l2_size"};
  EXPECT_TRUE(round_trip(order) == order);

  program_reply reply;
  reply.device.ordinal = 1;
  reply.device.uuid = "GPU-1";
  reply.status = program_run_status::cannot_start;
  reply.detail = "cannot start /cache/l2_size: No such file or directory";
  gpu::program_trial crashed;
  crashed.outcome = gpu::program_outcome::crashed;
  crashed.exit.signal = 11;
  crashed.wall_s = 0.25;
  crashed.results = {{"value", 50.0}};
  crashed.detail = "signal 11 (Segmentation fault)";
  crashed.output_tail = "RESULT: value=50\n";
  reply.trials = {crashed};
  reply.wall_s = 1.5;
  const auto back = round_trip(reply);
  EXPECT_EQ(back.device, reply.device);
  EXPECT_EQ(back.status, reply.status);
  EXPECT_EQ(back.detail, reply.detail);
  EXPECT_EQ(back.wall_s, reply.wall_s);
  ASSERT_EQ(back.trials.size(), 1u);
  EXPECT_EQ(back.trials[0].outcome, crashed.outcome);
  EXPECT_EQ(back.trials[0].exit, crashed.exit);
  EXPECT_EQ(back.trials[0].wall_s, crashed.wall_s);
  EXPECT_EQ(back.trials[0].results, crashed.results);
  EXPECT_EQ(back.trials[0].detail, crashed.detail);
  EXPECT_EQ(back.trials[0].output_tail, crashed.output_tail);

  counter_order counters{"dram_bandwidth", "GB/s", {"dram__bytes_read.sum"}, 3012.7, "/cache/dram", "/run/jobs/dram", 60};
  EXPECT_TRUE(round_trip(counters) == counters);
  counters.rederive_count = "dram__bytes_read.sum"; // the catalog's rederive formula travels with it
  counters.rederive_over = "gpu__time_duration.sum";
  counters.rederive_scale = 1e-9;
  EXPECT_TRUE(round_trip(counters) == counters);
  counter_reply verdict{reply.device, "PASS (ncu: dram__bytes_read.sum=1e+10 byte)"};
  EXPECT_TRUE(round_trip(verdict) == verdict);
}

TEST_F(CalibrateMessages, TheCalibratorsOrderEndAndJobResultsRoundTrip) {
  calibration_order order;
  order.options.schedule.max_priority = 3;
  order.options.schedule.only = {"l2_size"};
  order.options.schedule.reset = {"l1_size"};
  order.options.trials = 7;
  order.options.throttle_fraction = 0.95;
  order.options.arch = "sm_90a";
  order.options.run_dir = "/runs/calibrate-1";
  order.options.notes_path = "/runs/calibrate-notes.json";
  order.options.resume = true;
  order.campaign_id = 4;
  order.jobs = {{"l2_size", 12}};
  const auto back = round_trip(order);
  EXPECT_EQ(back.options.schedule.max_priority, 3u);
  EXPECT_EQ(back.options.schedule.only, order.options.schedule.only);
  EXPECT_EQ(back.options.schedule.reset, order.options.schedule.reset);
  EXPECT_EQ(back.options.trials, 7u);
  EXPECT_EQ(back.options.throttle_fraction, 0.95);
  EXPECT_EQ(back.options.arch, "sm_90a");
  EXPECT_EQ(back.options.run_dir, order.options.run_dir);
  EXPECT_EQ(back.options.notes_path, order.options.notes_path);
  EXPECT_TRUE(back.options.resume);
  EXPECT_EQ(back.campaign_id, 4);
  EXPECT_EQ(back.jobs, order.jobs);

  calibration_end end;
  end.summary.results = {sample_result()};
  end.summary.attempted = {"l2_size"};
  end.summary.kept = {"l1_size"};
  end.summary.deferred = {{"dram_latency", "dependency l2_size did not pass in this run"}};
  end.summary.problems = {"report not written: /ro/report.md"};
  end.summary.interrupted = true;
  EXPECT_TRUE(round_trip(end) == end);
  calibration_end refused;
  refused.cannot_start = "cannot resume: results.json: not JSON";
  EXPECT_TRUE(round_trip(refused) == refused);

  measured_parameter measured{sample_result(), 1, worker_service::out_of_service};
  EXPECT_TRUE(round_trip(measured) == measured);
  measured.result.value.reset(); // not measured: no value, never 0
  measured.result.known.reset();
  EXPECT_TRUE(round_trip(measured) == measured);
}

} // namespace
} // namespace warpforge::messages
