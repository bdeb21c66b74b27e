// The calibrator under the supervisor, with a gpu_worker per stand-in GPU: calibrate's parameters
// go to idle GPUs through their workers, which run each benchmark's trials (real processes:
// tests/actors/stand_in_programs.hpp) under their lock and watchdog. The results are compared
// with the engine alone (run_calibration, the programs run directly) on the same programs.

#include "actors/calibrator.hpp"
#include "actors/registry.hpp"
#include "calibrate/engine/report_files.hpp"
#include "gpu/runner/gpu_lock.hpp"
#include "runtime_fixture.hpp"
#include "stand_in_programs.hpp"
#include "storage/database.hpp"

#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <gtest/gtest.h>

#include <future>
#include <thread>

namespace warpforge::actors {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace cal = warpforge::calibrate;
using testing::program_behaviour;
using testing::stand_in_programs;

constexpr auto trial_watchdog = 1500ms; // a hanging stand-in is killed after this

// A catalog parameter in cycles, [1, 100], no published value and no validation metric.
cal::parameter parameter(const std::string& name, std::vector<std::string> depends_on = {}) {
  cal::parameter p;
  p.name = name;
  p.group = cal::category::instruction_latency;
  p.unit = "cycles";
  p.technique = "a stand-in program";
  p.priority = 1;
  p.depends_on = std::move(depends_on);
  p.range_min = 1;
  p.range_max = 100;
  p.expected_sass = {"FFMA"};
  p.description = "a test parameter";
  return p;
}

class Calibrator : public testing::runtime_fixture {
protected:
  void SetUp() override {
    runtime_fixture::SetUp();
    // a <- b, c, d <- e: a and c can start at once, b and e wait for theirs.
    catalog = std::make_shared<const cal::catalog>(cal::catalog::from(
      {parameter("a"), parameter("b", {"a"}), parameter("c"), parameter("d"), parameter("e", {"d"})}));
    for (const auto& p : catalog->parameters()) {
      cal::benchmark b;
      b.parameter = p.name;
      b.file = "kernels/" + p.name + ".cu";
      b.source = "int main() { return 0; }\n";
      b.arch = "sm_90";
      b.required_sass = {"FFMA"};
      benches[p.name] = b;
    }
  }

  cal::benchmark_lookup bench_lookup() {
    return [this](std::string_view name) -> const cal::benchmark* {
      auto found = benches.find(std::string{name});
      return found == benches.end() ? nullptr : &found->second;
    };
  }

  static std::vector<cal::gpu_slot> stand_in_gpus() {
    const auto pid = std::to_string(::getpid());
    return {{0, "GPU-stand-in-0-" + pid, "stand-in GPU 0", "sm_90"}, {1, "GPU-stand-in-1-" + pid, "stand-in GPU 1", "sm_90"}};
  }

  calibrator_config config_with(std::shared_ptr<cal::build_steps> host) {
    calibrator_config c;
    c.catalog = catalog;
    c.host = std::move(host);
    c.benchmarks = bench_lookup();
    c.gpu.trial_watchdog = trial_watchdog;
    c.gpu.lock_timeout = 5s;
    c.gpu.reply_slack = 5s;
    c.gpu.retry_delay = 50ms;
    for (const auto& slot : stand_in_gpus()) {
      gpu_worker_config worker;
      worker.device.ordinal = slot.ordinal;
      worker.device.uuid = slot.uuid;
      worker.device.name = slot.name;
      worker.device.sm_major = 9;
      worker.device.sm_minor = 0;
      worker.keep_runner = false;
      worker.lock_holder = "calibrator_test";
      worker.lock_timeout = 5s;
      worker.lock_dir = dir / "locks";
      worker.ncu = fs::path{}; // no ncu: a counter order says so
      c.workers.push_back(std::move(worker));
    }
    return c;
  }

  cal::calibration_options engine_options(const fs::path& run_dir) {
    fs::create_directories(run_dir);
    cal::calibration_options o;
    o.run_dir = run_dir;
    o.notes_path = run_dir / "notes.json";
    o.trials = 3;
    return o;
  }

  // The actor path: a runtime with the calibrate children, one order to its end.
  messages::calibration_end run_through_actors(std::shared_ptr<cal::build_steps> host, const fs::path& run_dir) {
    auto o = options();
    o.calibrate = config_with(std::move(host));
    auto rt = runtime::start(o);
    EXPECT_TRUE(rt) << (rt ? "" : rt.error());
    if (!rt)
      return {};
    messages::calibration_order order;
    order.options = engine_options(run_dir);
    order.campaign_id = campaign_row(**rt);
    auto end = (*rt)->calibrate(order, [] { return false; });
    EXPECT_TRUE(end) << (end ? "" : end.error());
    (*rt)->stop();
    return end ? std::move(*end) : messages::calibration_end{};
  }

  // The campaign row the parameters' job rows belong to.
  static std::int64_t campaign_row(runtime& rt) {
    auto id = rt.record(storage::campaign_record{"cal", "(test)", "kind = \"calibrate\"", "run"});
    EXPECT_TRUE(id) << (id ? "" : id.error());
    return id ? *id : 0;
  }

  static const cal::parameter_result* find(const cal::run_summary& s, const std::string& name) {
    for (const auto& r : s.results)
      if (r.name == name)
        return &r;
    return nullptr;
  }

  std::shared_ptr<const cal::catalog> catalog;
  std::map<std::string, cal::benchmark> benches;
};

TEST_F(Calibrator, SpreadsTheParametersOverTwoStandInGpusThroughTheirWorkers) {
  auto host = std::make_shared<stand_in_programs>(dir / "bin", std::map<std::string, program_behaviour>{});
  const auto end = run_through_actors(host, dir / "run");
  ASSERT_TRUE(end.cannot_start.empty()) << end.cannot_start;
  const auto& summary = end.summary;
  EXPECT_FALSE(summary.interrupted);
  ASSERT_EQ(summary.results.size(), 5u);
  std::set<std::string> gpus_used;
  for (const auto& r : summary.results) {
    EXPECT_TRUE(cal::is_passing(r.result)) << r.name << ": " << cal::to_string(r.result);
    ASSERT_TRUE(r.value) << r.name;
    EXPECT_DOUBLE_EQ(*r.value, 4.0) << r.name;
    EXPECT_EQ(r.stats.n, 3u) << r.name << ": every trial ran through the worker";
    EXPECT_TRUE(fs::exists(dir / "run" / "jobs" / r.name / "trial-3.log")) << r.name;
    gpus_used.insert(r.gpu_name);
  }
  EXPECT_EQ(gpus_used, (std::set<std::string>{"stand-in GPU 0", "stand-in GPU 1"}))
    << "a and c were ready at once: each went to an idle GPU";
  EXPECT_EQ(summary.attempted.size(), 5u);
  auto results = cal::read_results(dir / "run");
  ASSERT_TRUE(results) << results.error();
  EXPECT_EQ(results->size(), 5u) << "results.json was written as the run went";
  auto db = storage::database::open_read_only(dir / "warpforge.db");
  ASSERT_TRUE(db);
  auto jobs = db->load_jobs(1);
  ASSERT_TRUE(jobs);
  ASSERT_EQ(jobs->size(), 5u) << "a job row per parameter, through the recorder";
  for (const auto& job : *jobs)
    EXPECT_EQ(job.state, vocabulary::job_state::finished) << job.name;
}

TEST_F(Calibrator, ATrialThatCrashesOrHangsIsRecordedAndTheRunFinishes) {
  auto host = std::make_shared<stand_in_programs>(
    dir / "bin", std::map<std::string, program_behaviour>{{"a", program_behaviour::crash}, {"d", program_behaviour::hang}});
  const auto end = run_through_actors(host, dir / "run");
  ASSERT_TRUE(end.cannot_start.empty()) << end.cannot_start;
  const auto& summary = end.summary;
  EXPECT_FALSE(summary.interrupted);
  const auto* a = find(summary, "a");
  const auto* d = find(summary, "d");
  ASSERT_TRUE(a && d);
  EXPECT_EQ(a->result, cal::status::runtime_error);
  EXPECT_FALSE(a->value) << "a crashed trial gives no value, never 0";
  ASSERT_FALSE(a->notes.empty());
  EXPECT_NE(a->notes.front().find("crashed"), std::string::npos) << a->notes.front();
  EXPECT_EQ(d->result, cal::status::timeout) << "the worker's watchdog killed the hanging trial";
  for (const auto* name : {"b", "e"}) {
    const auto* r = find(summary, name);
    ASSERT_TRUE(r) << name;
    EXPECT_EQ(r->result, cal::status::no_data) << name;
    ASSERT_FALSE(r->notes.empty());
    EXPECT_EQ(r->notes.front().rfind("deferred: dependency", 0), 0u) << r->notes.front();
  }
  const auto* c = find(summary, "c");
  ASSERT_TRUE(c);
  EXPECT_TRUE(cal::is_passing(c->result)) << "the run went on past the crash and the hang";
}

TEST_F(Calibrator, GivesTheSameResultsAsTheEngineAloneOnTheSamePrograms) {
  const std::map<std::string, program_behaviour> table{{"d", program_behaviour::crash}};
  auto through_actors = run_through_actors(std::make_shared<stand_in_programs>(dir / "bin-actors", table),
                                           dir / "actors");
  stand_in_programs direct{dir / "bin-engine", table, 4.0, trial_watchdog};
  cal::run_observer quiet;
  auto alone = cal::run_calibration(*catalog, engine_options(dir / "engine"), direct, stand_in_gpus(), quiet, nullptr,
                                    bench_lookup());
  ASSERT_TRUE(alone) << alone.error();
  ASSERT_EQ(through_actors.summary.results.size(), alone->results.size());
  for (std::size_t i = 0; i < alone->results.size(); ++i) {
    auto mine = through_actors.summary.results[i];
    auto theirs = alone->results[i];
    mine.measured_at = theirs.measured_at = ""; // the clock differs, nothing else may
    // Which of two identical stand-in GPUs ran it depends on which was idle first.
    mine.gpu_name = theirs.gpu_name = "";
    EXPECT_EQ(mine, theirs) << mine.name;
  }
  EXPECT_EQ(through_actors.summary.passing(), alone->passing());
  EXPECT_EQ(through_actors.summary.deferred, alone->deferred);
}

TEST_F(Calibrator, AWorkerAnswersACounterOrderWithAVerdictAndARunWithoutAGpuBuildsOnly) {
  auto host = std::make_shared<stand_in_programs>(dir / "bin", std::map<std::string, program_behaviour>{});
  auto o = options();
  auto config = config_with(host);
  o.calibrate = config;
  auto rt = runtime::start(o);
  ASSERT_TRUE(rt) << rt.error();
  std::string verdict;
  { // Scoped: handles to its actors must not outlive the system (its stop waits for them).
    caf::scoped_actor self{(*rt)->system()};
    auto worker = lookup<messages::gpu_worker_actor>((*rt)->system(), gpu_worker_name(1));
    ASSERT_TRUE(worker);
    messages::counter_order order;
    order.parameter = "a";
    order.unit = "cycles";
    order.metrics = {"smsp__inst_executed_pipe_fma.sum"};
    order.measured = 4;
    order.executable = dir / "bin" / "a";
    order.dir = dir / "counters";
    self->request(worker, 10s, order).receive([&](messages::counter_reply& r) { verdict = r.verdict; },
                                              [&](caf::error& e) { verdict = (*rt)->system().render(e); });
  }
  EXPECT_EQ(verdict, "not validated: no ncu on $PATH or in $CUDA_HOME/bin");
  (*rt)->stop();

  // No GPU: no worker; each benchmark is built and SASS-checked, nothing runs, nothing is final.
  auto none = options();
  none.database = dir / "none.db";
  none.feed.endpoint_file = dir / "none.endpoint";
  none.calibrate = config_with(host);
  none.calibrate->workers.clear();
  auto bare = runtime::start(none);
  ASSERT_TRUE(bare) << bare.error();
  messages::calibration_order calibrate_order;
  calibrate_order.options = engine_options(dir / "no-gpu");
  calibrate_order.campaign_id = campaign_row(**bare);
  auto end = (*bare)->calibrate(calibrate_order, [] { return false; });
  ASSERT_TRUE(end) << end.error();
  for (const auto& r : end->summary.results) {
    EXPECT_EQ(r.result, cal::status::no_data) << r.name;
    EXPECT_FALSE(r.value) << r.name;
    EXPECT_EQ(r.sass_verdict.rfind("OK", 0), 0u) << r.name << ": " << r.sass_verdict;
    EXPECT_FALSE(fs::exists(dir / "no-gpu" / "jobs" / r.name / "trial-1.log")) << r.name;
  }
  EXPECT_EQ(end->summary.attempted.size(), 5u);
  (*bare)->stop();
}

TEST_F(Calibrator, AGpuWhoseLockAnotherHoldsGetsNoMoreWorkAfterSayingSoAndTheOtherMeasuresTheRest) {
  auto host = std::make_shared<stand_in_programs>(dir / "bin", std::map<std::string, program_behaviour>{});
  auto o = options();
  o.calibrate = config_with(host);
  for (auto& worker : o.calibrate->workers)
    worker.lock = gpu::lock_policy::fail;
  auto held = gpu::gpu_lock::acquire(o.calibrate->workers[0].device.uuid, "another warpforge", gpu::lock_policy::fail,
                                     1s, dir / "locks");
  ASSERT_TRUE(held) << held.error().to_string();
  auto rt = runtime::start(o);
  ASSERT_TRUE(rt) << rt.error();
  messages::calibration_order order;
  order.options = engine_options(dir / "run");
  order.campaign_id = campaign_row(**rt);
  auto end = (*rt)->calibrate(order, [] { return false; });
  ASSERT_TRUE(end) << end.error();
  std::size_t refused = 0, measured = 0;
  for (const auto& r : end->summary.results) {
    if (r.gpu_name == "stand-in GPU 0") {
      ++refused;
      EXPECT_EQ(r.result, cal::status::no_data) << r.name;
      EXPECT_NE(cal::not_measured_reason(r).find("out of service"), std::string::npos) << cal::not_measured_reason(r);
    } else {
      measured += cal::is_passing(r.result);
    }
  }
  EXPECT_EQ(refused, 1u) << "GPU 0 was handed one parameter, said why it could not measure it, and got no more";
  const auto* a = find(end->summary, "a");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->gpu_name, "stand-in GPU 0") << "the first parameter went to the first idle GPU";
  // a did not pass, so b is deferred; c, d and e went to GPU 1.
  EXPECT_EQ(measured, 3u);
  EXPECT_FALSE(end->summary.interrupted);
  (*rt)->stop();
}

TEST_F(Calibrator, ACrashedCalibratorIsRestartedByTheSupervisorAndItsSuccessorContinues) {
  // Each program takes 0.3 s a trial: the calibrator is killed while the run is under way.
  std::map<std::string, program_behaviour> slow;
  for (const auto& p : catalog->parameters())
    slow[p.name] = program_behaviour::slow;
  auto host = std::make_shared<stand_in_programs>(dir / "bin", slow);
  auto o = options();
  o.calibrate = config_with(host);
  auto rt = runtime::start(o);
  ASSERT_TRUE(rt) << rt.error();
  messages::calibration_order order;
  order.options = engine_options(dir); // the run directory holds the store, as a command's does
  order.campaign_id = campaign_row(**rt);
  auto running = std::async(std::launch::async, [&] { return (*rt)->calibrate(order, [] { return false; }); });
  // Once a result is in results.json, the calibrator is killed as a crash would end it.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  bool recorded = false;
  while (!recorded && std::chrono::steady_clock::now() < deadline) {
    auto results = cal::read_results(dir);
    recorded = results && !results->empty();
    if (!recorded)
      std::this_thread::sleep_for(5ms);
  }
  ASSERT_TRUE(recorded);
  caf::actor_addr first;
  {
    auto handle = lookup<messages::calibrator_actor>((*rt)->system(), calibrator_name);
    ASSERT_TRUE(handle);
    first = handle.address();
    caf::anon_send_exit(handle, caf::exit_reason::kill);
  }
  auto end = running.get();
  ASSERT_TRUE(end) << end.error();
  EXPECT_TRUE(end->cannot_start.empty()) << end->cannot_start;
  EXPECT_FALSE(end->summary.interrupted);
  EXPECT_EQ(end->summary.results.size(), 5u);
  EXPECT_EQ(end->summary.passing(), 5u) << "the successor measured what the first had not finished";
  EXPECT_FALSE(end->summary.kept.empty()) << "and kept what it had recorded";
  {
    auto second = lookup<messages::calibrator_actor>((*rt)->system(), calibrator_name);
    EXPECT_NE(second.address(), first) << "the supervisor spawned a successor";
  }
  auto report = (*rt)->report();
  ASSERT_TRUE(report) << report.error();
  EXPECT_GE(report->restarts, 1u);
  (*rt)->stop();
  auto db = storage::database::open_read_only(dir / "warpforge.db");
  ASSERT_TRUE(db);
  auto jobs = db->load_jobs(order.campaign_id);
  ASSERT_TRUE(jobs);
  EXPECT_EQ(jobs->size(), 5u) << "the successor updated the job rows the first one made";
  for (const auto& job : *jobs)
    EXPECT_EQ(job.state, vocabulary::job_state::finished) << job.name;
}

} // namespace
} // namespace warpforge::actors
