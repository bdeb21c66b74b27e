// gpu_worker and its runner_keeper against a stand-in runner that hangs, crashes or loses its
// context on purpose (tests/gpu/fake_runner.cpp, mode by_entry: each kernel's entry name says
// what to do, for run_race and profile_candidate alike). Real processes, real ZeroMQ ipc,
// real SQLite and feed for the events; the ncu fallback runs a stand-in ncu script.

#include "actors/gpu_worker.hpp"
#include "actors/runtime.hpp"
#include "storage/database.hpp"

#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace warpforge::actors {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// The reply deadline of a kernel that hangs, so a hang test ends soon; every kernel that answers
// (pass, crash, lost context, ...) gets a long one instead, which only a broken runner waits out:
// on a loaded machine a runner may take longer than a short deadline to answer.
constexpr auto short_watchdog = 500ms;
constexpr auto answering_watchdog = 30s;

config::supervision_policy fast_policy(std::uint32_t max_restarts) {
  config::supervision_policy p;
  p.max_restarts = max_restarts;
  p.window_s = 60;
  p.backoff_initial_ms = 5;
  p.backoff_factor = 2.0;
  p.backoff_max_ms = 20;
  return p;
}

runner_keeper_options fake_keeper(std::uint32_t max_restarts, std::string mode = "by_entry") {
  runner_keeper_options o;
  o.runner.executable = WARPFORGE_FAKE_RUNNER_PATH;
  o.runner.extra_env = {{"WARPFORGE_FAKE_RUNNER_MODE", std::move(mode)}};
  o.runner.start_timeout = 5s;
  o.restarts = fast_policy(max_restarts);
  return o;
}

// A race the fake runner acts on by entry names, one kernel each; the layout is irrelevant to it.
gpu::race_request race_of(const std::vector<std::string>& entries) {
  gpu::race_request r;
  for (const auto& entry : entries)
    r.kernels.push_back({"/nonexistent/" + entry + ".cubin", entry, {}});
  r.seeds = {1, 2};
  return r;
}

gpu::race_request behaving(const std::string& entry) {
  return race_of({entry});
}

std::vector<vocabulary::branch_outcome> outcomes(const gpu::race_result& r) {
  std::vector<vocabulary::branch_outcome> out;
  for (const auto& k : r.kernels)
    out.push_back(k.outcome);
  return out;
}

struct recorded_events {
  std::vector<runner_event> events;
  runner_keeper::event_sink sink() {
    return [this](const runner_event& e) { events.push_back(e); };
  }
  int count(runner_event::kind k) const {
    int n = 0;
    for (const auto& e : events)
      n += e.what == k;
    return n;
  }
};

TEST(RunnerKeeper, TheReplyDeadlineKillsASilentRunnerAndTheNextRaceRunsOnAFreshOne) {
  recorded_events seen;
  runner_keeper keeper{fake_keeper(0), seen.sink()};
  ASSERT_TRUE(keeper.ensure_running());
  auto hung = keeper.run(behaving("hang"), short_watchdog);
  ASSERT_TRUE(hung) << hung.error().to_string();
  ASSERT_EQ(hung->kernels.size(), 1u);
  EXPECT_EQ(hung->kernels[0].outcome, vocabulary::branch_outcome::timeout);
  EXPECT_NE(hung->kernels[0].detail.find("reply_timeout"), std::string::npos) << hung->kernels[0].detail;
  EXPECT_EQ(keeper.watchdog_kills(), 1u);
  EXPECT_FALSE(keeper.running());

  auto next = keeper.run(behaving("pass"), answering_watchdog);
  ASSERT_TRUE(next) << next.error().to_string();
  EXPECT_EQ(next->kernels[0].outcome, vocabulary::branch_outcome::passed);
  // A hang is the kernel's doing: no budget spent (max_restarts 0), no back-off.
  EXPECT_FALSE(keeper.gave_up());
  EXPECT_EQ(keeper.starts(), 2u);
  EXPECT_EQ(keeper.restarts(), 1u);
  ASSERT_EQ(seen.count(runner_event::kind::restarted), 1);
  EXPECT_NE(seen.events.back().reason.find("watchdog"), std::string::npos);
  EXPECT_EQ(seen.events.back().backoff.count(), 0);
}

TEST(RunnerKeeper, ALostContextReplacesTheRunnerWithoutSpendingTheBudget) {
  recorded_events seen;
  runner_keeper keeper{fake_keeper(0), seen.sink()};
  for (int i = 0; i < 3; ++i) {
    auto lost = keeper.run(behaving("lost_context"), answering_watchdog);
    ASSERT_TRUE(lost) << lost.error().to_string();
    EXPECT_EQ(lost->kernels[0].outcome, vocabulary::branch_outcome::runtime_error);
    EXPECT_FALSE(lost->runner_exits) << "the keeper dealt with it";
    EXPECT_FALSE(keeper.running());
  }
  auto good = keeper.run(behaving("pass"), answering_watchdog);
  ASSERT_TRUE(good) << good.error().to_string();
  EXPECT_EQ(good->kernels[0].outcome, vocabulary::branch_outcome::passed);
  EXPECT_FALSE(keeper.gave_up());
  EXPECT_EQ(keeper.restarts(), 3u);
  EXPECT_NE(seen.events.back().reason.find("CUDA context"), std::string::npos);
}

TEST(RunnerKeeper, KernelsARunnerLeftWithoutAVerdictRunAgainUntilEveryKernelHasOne) {
  recorded_events seen;
  runner_keeper keeper{fake_keeper(0), seen.sink()};
  // Attempt 1 ends on kernel 2 (lost context): 0, 3, 4, 5 have no verdict yet (1 is incorrect).
  // Attempt 2 (0, 3, 4, 5) ends on kernel 4 (the runner's kernel watchdog). Attempt 3 times the rest.
  auto r = keeper.run(race_of({"pass", "incorrect", "lost_context", "pass", "watchdog", "pass"}), answering_watchdog);
  ASSERT_TRUE(r) << r.error().to_string();
  using vocabulary::branch_outcome;
  EXPECT_EQ(outcomes(*r), (std::vector<branch_outcome>{branch_outcome::passed, branch_outcome::incorrect,
                                                      branch_outcome::runtime_error, branch_outcome::passed,
                                                      branch_outcome::timeout, branch_outcome::passed}));
  EXPECT_EQ(r->kernels[1].seed, std::optional<std::uint64_t>{42});
  EXPECT_FALSE(r->ended_by);
  EXPECT_FALSE(r->runner_exits);
  EXPECT_EQ(keeper.restarts(), 2u) << "one fresh runner after each kernel that ended one";
  EXPECT_FALSE(keeper.gave_up()) << "the kernels' doing: no budget spent (max_restarts 0)";
  EXPECT_TRUE(keeper.running());
  int reruns = 0;
  for (const auto& note : r->notes)
    reruns += note.find("run again on a fresh runner") != std::string::npos;
  EXPECT_EQ(reruns, 2);
}

TEST(RunnerKeeper, ARunnerThatStopsTalkingGivesEveryKernelWithoutAVerdictATimeout) {
  recorded_events seen;
  runner_keeper keeper{fake_keeper(0), seen.sink()};
  ASSERT_TRUE(keeper.ensure_running());
  const auto start = std::chrono::steady_clock::now();
  auto r = keeper.run(race_of({"incorrect", "hang", "pass"}), short_watchdog);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(r) << r.error().to_string();
  using vocabulary::branch_outcome;
  // No reply at all: nobody can tell which kernel hung, so none of them has a verdict.
  EXPECT_EQ(outcomes(*r), (std::vector<branch_outcome>(3, branch_outcome::timeout)));
  EXPECT_GE(took, 3 * short_watchdog) << "the reply deadline scales with the race's kernels";
}

TEST(RunnerKeeper, CrashesBackOffAndGiveUpPastTheBudget) {
  recorded_events seen;
  runner_keeper keeper{fake_keeper(2), seen.sink()};
  for (int i = 0; i < 2; ++i) {
    auto crashed = keeper.run(behaving("crash"), answering_watchdog);
    ASSERT_TRUE(crashed) << crashed.error().to_string();
    EXPECT_EQ(crashed->kernels[0].outcome, vocabulary::branch_outcome::runtime_error);
    EXPECT_NE(crashed->kernels[0].detail.find("crashed"), std::string::npos) << crashed->kernels[0].detail;
    EXPECT_FALSE(keeper.gave_up());
  }
  auto restarted = keeper.run(behaving("pass"), answering_watchdog);
  ASSERT_TRUE(restarted) << restarted.error().to_string();
  ASSERT_EQ(seen.count(runner_event::kind::restarted), 2);
  EXPECT_EQ(seen.events[1].backoff, 5ms);  // backoff_delay(policy, 0)
  EXPECT_EQ(seen.events[2].backoff, 10ms); // backoff_delay(policy, 1)

  auto third = keeper.run(behaving("crash"), answering_watchdog); // 3 > max_restarts 2 in the window
  ASSERT_TRUE(third);
  EXPECT_EQ(third->kernels[0].outcome, vocabulary::branch_outcome::runtime_error);
  EXPECT_TRUE(keeper.gave_up());
  EXPECT_NE(keeper.give_up_reason().find("3 times within 60 s"), std::string::npos)
    << keeper.give_up_reason();
  EXPECT_EQ(seen.count(runner_event::kind::failed), 1);

  auto after = keeper.run(behaving("pass"), answering_watchdog);
  ASSERT_FALSE(after) << "no runner: nothing ran";
  EXPECT_EQ(after.error().detail, keeper.give_up_reason());
}

TEST(RunnerKeeper, ARunnerThatNeverStartsIsGivenUpAfterItsBudget) {
  recorded_events seen;
  runner_keeper keeper{fake_keeper(2, "exit_on_start"), seen.sink()};
  EXPECT_FALSE(keeper.ensure_running());
  EXPECT_TRUE(keeper.gave_up());
  EXPECT_NE(keeper.give_up_reason().find("did not start"), std::string::npos) << keeper.give_up_reason();
  EXPECT_EQ(keeper.starts(), 0u);
  ASSERT_EQ(seen.events.size(), 1u);
  EXPECT_EQ(seen.events[0].what, runner_event::kind::failed);
}

TEST(RunnerKeeper, AMissingExecutableIsGivenUpAtOnce) {
  auto options = fake_keeper(5);
  options.runner.executable = "/nonexistent/warpforge-runner";
  recorded_events seen;
  runner_keeper keeper{options, seen.sink()};
  EXPECT_FALSE(keeper.ensure_running());
  EXPECT_TRUE(keeper.gave_up());
  EXPECT_NE(keeper.give_up_reason().find("/nonexistent/warpforge-runner"), std::string::npos);
}

gpu::profile_request profiling(const std::string& entry, std::vector<std::string> metrics) {
  gpu::profile_request r;
  r.run = behaving(entry);
  r.metrics = std::move(metrics);
  return r;
}

constexpr auto dram_pct = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr auto duration_ns = "gpu__time_duration.sum";

TEST(RunnerKeeper, ProfileAnswersWithTheRunnersCountersAndUnknownMetricsAsMissing) {
  recorded_events seen;
  runner_keeper keeper{fake_keeper(0), seen.sink()};
  auto r = keeper.profile(profiling("pass", {dram_pct, duration_ns, "l1tex__nope.sum"}), answering_watchdog);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->status, gpu::profile_status::ok) << r->note;
  EXPECT_DOUBLE_EQ(r->values.at(dram_pct), 91.5);
  EXPECT_DOUBLE_EQ(r->values.at(duration_ns), 62080.0);
  EXPECT_EQ(r->missing.count("l1tex__nope.sum"), 1u);
  EXPECT_TRUE(keeper.running());
}

TEST(RunnerKeeper, RestrictedCountersAreAnAnswerAndTheRunnerStays) {
  recorded_events seen;
  runner_keeper keeper{fake_keeper(0), seen.sink()};
  auto r = keeper.profile(profiling("restricted", {dram_pct}), answering_watchdog);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->status, gpu::profile_status::counters_unavailable);
  EXPECT_TRUE(keeper.running());
  EXPECT_EQ(keeper.starts(), 1u);
}

// A batch: one runner request for every profile. A kernel that loses the context ends its batch;
// the profiles it left untaken are asked again of a fresh runner and answered.
TEST(RunnerKeeper, ABatchsProfilesLeftUntakenByALostContextAreAskedAgainOfAFreshRunner) {
  recorded_events seen;
  runner_keeper keeper{fake_keeper(1), seen.sink()};
  auto all = keeper.profile(std::vector{profiling("pass", {dram_pct}), profiling("pass", {dram_pct})}, answering_watchdog);
  ASSERT_TRUE(all) << all.error().to_string();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].status, gpu::profile_status::ok);
  EXPECT_EQ(keeper.starts(), 1u);

  auto mixed = keeper.profile(std::vector{profiling("pass", {dram_pct}), profiling("lost_context", {dram_pct}),
                                          profiling("pass", {dram_pct})},
                              answering_watchdog);
  ASSERT_TRUE(mixed) << mixed.error().to_string();
  ASSERT_EQ(mixed->size(), 3u);
  EXPECT_TRUE((*mixed)[1].runner_exits) << "the culprit says so";
  for (std::size_t i : {0u, 2u}) {
    EXPECT_EQ((*mixed)[i].status, gpu::profile_status::ok) << i << ": " << (*mixed)[i].note;
    EXPECT_DOUBLE_EQ((*mixed)[i].values.at(dram_pct), 91.5);
  }
  EXPECT_EQ(keeper.starts(), 2u) << "one fresh runner for the two left untaken";
  EXPECT_FALSE(keeper.gave_up());
}

// A kernel that hangs under the profiler takes its batch past the deadline: each profile is asked
// again alone, so only the hung one is lost, and it says so (runner_exits: no other tool tries it).
TEST(RunnerKeeper, ABatchThatHangsIsAskedAgainProfileByProfileAndOnlyTheHungOneIsLost) {
  recorded_events seen;
  runner_keeper keeper{fake_keeper(5), seen.sink()};
  auto r = keeper.profile(std::vector{profiling("pass", {dram_pct}), profiling("hang", {dram_pct}),
                                      profiling("pass", {dram_pct})},
                          3 * short_watchdog);
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].status, gpu::profile_status::ok) << (*r)[0].note;
  EXPECT_EQ((*r)[2].status, gpu::profile_status::ok) << (*r)[2].note;
  EXPECT_EQ((*r)[1].status, gpu::profile_status::failed);
  EXPECT_TRUE((*r)[1].runner_exits);
  EXPECT_NE((*r)[1].note.find("asked alone after its batch timed out"), std::string::npos) << (*r)[1].note;
  EXPECT_EQ(keeper.watchdog_kills(), 2u) << "the batch, then the hung kernel alone";
}

TEST(RunnerKeeper, ProfilingSharesTheRunnersDeathHandlingWithRun) {
  recorded_events seen;
  runner_keeper keeper{fake_keeper(1), seen.sink()};
  // A candidate that loses the context under the profiler: a fresh runner, no budget spent.
  auto lost = keeper.profile(profiling("lost_context", {dram_pct}), answering_watchdog);
  ASSERT_TRUE(lost) << lost.error().to_string();
  EXPECT_TRUE(lost->runner_exits);
  EXPECT_FALSE(keeper.running());
  // One that hangs under it: the watchdog kills the runner, no budget spent either.
  auto hung = keeper.profile(profiling("hang", {dram_pct}), short_watchdog);
  ASSERT_FALSE(hung);
  EXPECT_EQ(hung.error().kind, gpu::runner_error_kind::reply_timeout);
  EXPECT_EQ(keeper.watchdog_kills(), 1u);
  // A runner that crashes mid-profile spends the budget, as in run().
  auto crashed = keeper.profile(profiling("crash", {dram_pct}), answering_watchdog);
  ASSERT_FALSE(crashed);
  EXPECT_EQ(crashed.error().kind, gpu::runner_error_kind::crashed);
  EXPECT_FALSE(keeper.gave_up());
  auto good = keeper.profile(profiling("pass", {dram_pct}), answering_watchdog);
  ASSERT_TRUE(good) << good.error().to_string();
  EXPECT_EQ(good->status, gpu::profile_status::ok);
  EXPECT_EQ(keeper.restarts(), 3u);
  EXPECT_EQ(seen.events[1].backoff.count(), 0) << "the lost context: no back-off";
  EXPECT_EQ(seen.events[3].backoff, 5ms) << "the crash: backoff_delay(policy, 0)";
  auto again = keeper.profile(profiling("crash", {dram_pct}), answering_watchdog); // 2 > max_restarts 1
  ASSERT_FALSE(again);
  EXPECT_TRUE(keeper.gave_up());
  // run() still works the same way after profiling: the same keeper, the same runner.
  auto run_after = keeper.run(behaving("pass"), answering_watchdog);
  ASSERT_FALSE(run_after);
  EXPECT_EQ(run_after.error().detail, keeper.give_up_reason());
}

// --- the actor, on the runtime's feed and store -----------------------------------------------

// `deadline`: the reply deadline per kernel; zero leaves the worker's default.
messages::race_order race_order_for(gpu::race_request request, std::chrono::milliseconds deadline = {}) {
  return {{"nightly", "transpose", 1, -1}, std::move(request), std::chrono::duration<double>(deadline).count()};
}

class GpuWorker : public ::testing::Test {
protected:
  fs::path dir;

  void SetUp() override {
    dir = fs::temp_directory_path() / ("wf-gpu-worker-" + std::to_string(::getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "locks");
  }
  void TearDown() override { fs::remove_all(dir); }

  std::unique_ptr<runtime> start_runtime() {
    runtime_options o;
    o.database = dir / "warpforge.db";
    o.feed.publisher.endpoint = "tcp://127.0.0.1:*";
    o.feed.campaign = "worker-test";
    auto rt = runtime::start(o);
    EXPECT_TRUE(rt) << (rt ? "" : rt.error());
    return rt ? std::move(*rt) : nullptr;
  }

  gpu_worker_config worker_config(std::uint32_t max_restarts) {
    gpu_worker_config c;
    c.device.ordinal = 3;
    c.device.name = "Fake GPU";
    c.device.sm_major = 9;
    c.device.uuid = "GPU-fake-" + std::to_string(::getpid());
    c.keeper = fake_keeper(max_restarts);
    c.lock_holder = "gpu_worker_test";
    c.lock = gpu::lock_policy::fail;
    c.lock_dir = dir / "locks";
    c.default_watchdog = answering_watchdog;
    return c;
  }

  std::vector<std::string> stored_event_types() {
    auto db = storage::database::open_read_only(dir / "warpforge.db");
    EXPECT_TRUE(db);
    std::vector<std::string> types;
    if (auto rows = db->events_since(0, 1000))
      for (const auto& row : *rows)
        types.push_back(row.type);
    return types;
  }
};

TEST_F(GpuWorker, EveryMisbehaviourGetsItsOutcomeAndTheGoodKernelIsStillMeasured) {
  auto rt = start_runtime();
  ASSERT_TRUE(rt);
  auto& system = rt->system();
  { // handles and the scoped actor go before the system does
    auto worker = system.spawn<caf::detached>(gpu_worker, worker_config(1));
    caf::scoped_actor self{system};
    const std::vector<std::pair<std::string, vocabulary::branch_outcome>> script{
      {"crash", vocabulary::branch_outcome::runtime_error},
      {"hang", vocabulary::branch_outcome::timeout},
      {"lost_context", vocabulary::branch_outcome::runtime_error},
      {"incorrect", vocabulary::branch_outcome::incorrect},
      {"pass", vocabulary::branch_outcome::passed},
    };
    for (const auto& [entry, want] : script) {
      const auto deadline = entry == "hang" ? short_watchdog : answering_watchdog;
      self->request(worker, 10s, race_order_for(behaving(entry), deadline))
        .receive(
          [&, entry = entry, want = want](const messages::race_reply& r) {
            ASSERT_EQ(r.result.kernels.size(), 1u);
            EXPECT_EQ(r.result.kernels[0].outcome, want) << entry << ": " << r.result.kernels[0].detail;
            EXPECT_EQ(r.device.ordinal, 3);
            EXPECT_GT(r.wall_s, 0);
          },
          [&](caf::error& e) { ADD_FAILURE() << entry << ": " << system.render(e); });
  }
  // A race whose second kernel takes the runner down: every kernel still gets its verdict.
  self->request(worker, 20s, race_order_for(race_of({"pass", "lost_context", "incorrect", "pass"})))
    .receive(
      [&](const messages::race_reply& r) {
        EXPECT_EQ(outcomes(r.result), (std::vector<vocabulary::branch_outcome>{
                                          vocabulary::branch_outcome::passed, vocabulary::branch_outcome::runtime_error,
                                          vocabulary::branch_outcome::incorrect, vocabulary::branch_outcome::passed}));
      },
      [&](caf::error& e) { ADD_FAILURE() << system.render(e); });
  self->request(worker, 10s, messages::status_atom::value)
    .receive(
      [&](const messages::component_status& s) {
        EXPECT_EQ(s.component, "gpu.3");
        EXPECT_NE(s.state, messages::component_state::failed) << s.detail;
        std::map<std::string, std::int64_t> counters;
        for (const auto& c : s.counters)
          counters[c.name] = c.value;
        EXPECT_EQ(counters["races"], 6);
        EXPECT_EQ(counters["kernels"], 9);
        EXPECT_EQ(counters["timeouts"], 1);
        EXPECT_EQ(counters["runner_restarts"], 4); // crash, hang, lost context, and in the race
      },
      [&](caf::error& e) { ADD_FAILURE() << system.render(e); });
  self->send(worker, messages::stop_atom::value);
  self->wait_for(worker);
  }
  rt->stop();

  const auto types = stored_event_types();
  EXPECT_EQ(std::count(types.begin(), types.end(), "runner_started"), 1);
  EXPECT_EQ(std::count(types.begin(), types.end(), "runner_restarted"), 4);
}

TEST_F(GpuWorker, ASecondWorkerOnALockedGpuAnswersNotRunNamingTheHolder) {
  auto rt = start_runtime();
  ASSERT_TRUE(rt);
  auto& system = rt->system();
  {
    auto first = system.spawn<caf::detached>(gpu_worker, worker_config(1));
    caf::scoped_actor self{system};
    self->request(first, 10s, messages::status_atom::value).receive([](const messages::component_status&) {},
                                                                    [](caf::error&) {});
    auto config = worker_config(1);
    config.lock_holder = "the second one";
    auto second = system.spawn<caf::detached>(gpu_worker, config);
    self->request(second, 10s, race_order_for(behaving("pass")))
      .receive(
        [&](const messages::race_reply& r) {
          ASSERT_EQ(r.result.kernels.size(), 1u);
          EXPECT_EQ(r.result.kernels[0].outcome, vocabulary::branch_outcome::not_run);
          EXPECT_NE(r.result.kernels[0].detail.find("gpu_worker_test"), std::string::npos) << r.result.kernels[0].detail;
        },
        [&](caf::error& e) { ADD_FAILURE() << system.render(e); });
    for (auto& w : {first, second}) {
      self->send(w, messages::stop_atom::value);
      self->wait_for(w);
  }
  }
  rt->stop();
}

// A stand-in ncu: writes a raw-page CSV (the layout of docs/measurement.md) with two metrics
// CUPTI's range profiler cannot give, an L2 hit rate and a SASS-patching store efficiency, to its
// --log-file, and checks that it was handed the runner's request file.
std::filesystem::path write_fake_ncu(const std::filesystem::path& dir) {
  const auto script = dir / "fake-ncu";
  std::ofstream{script} << R"SH(#!/bin/sh
prev=""; log=""; req=""
for a in "$@"; do
  [ "$prev" = "--log-file" ] && log="$a"
  [ "$prev" = "--execute" ] && req="$a"
  prev="$a"
done
[ -f "$req" ] || { echo "no request file at $req" >&2; exit 3; }
cat > "$log" <<'CSV'
==PROF== Connected to process 4242 (warpforge-runner)
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","lts__t_sector_hit_rate.pct","profiler__replayer_passes","smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"
"","","","","","","","","","","","%","pass","%"
"0","4242","warpforge-runner","node","transpose","1","7","(32, 8, 1)","(256, 256, 1)","0","9.0","50","4","12.5"
CSV
)SH";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  return script;
}

messages::metrics_order profile_for(const std::string& entry, std::vector<std::string> keys,
                                    config::profile_tool tool = config::profile_tool::cupti) {
  return {{"nightly", "transpose", 1, 0}, behaving(entry), std::move(keys), tool};
}

TEST_F(GpuWorker, ProfilesThroughTheRunnerWithoutNcuInTheSteadyStateAndSaysWhyValuesAreMissing) {
  auto rt = start_runtime();
  ASSERT_TRUE(rt);
  auto& system = rt->system();
  {
    auto config = worker_config(1);
    config.ncu = write_fake_ncu(dir);
    config.ncu_work_dir = dir / "ncu";
    auto worker = system.spawn<caf::detached>(gpu_worker, config);
    caf::scoped_actor self{system};
    auto ask = [&](const messages::metrics_order& request) {
      gpu::metric_set out;
      self->request(worker, 10s, request)
        .receive([&](gpu::metric_set& set) { out = std::move(set); },
                 [&](caf::error& e) { ADD_FAILURE() << system.render(e); });
      return out;
    };
    auto value_of = [](const gpu::metric_set& set, const std::string& key) -> std::optional<double> {
      for (const auto& v : set.values)
        if (v.key == key)
          return v.value;
      return std::nullopt;
    };

    // CUPTI answers (tool cupti, the default): schema keys in schema units; what the stand-in
    // runner's chip lacks is named with its reason, and ncu is never started for it.
    auto cupti = ask(profile_for(
      "pass", {"dram_throughput", "duration", "dram_bytes", "l2_hit_rate", "global_store_efficiency", "ipc"}));
    EXPECT_EQ(cupti.source, gpu::metric_source::cupti) << cupti.note;
    EXPECT_EQ(value_of(cupti, "dram_throughput"), std::optional<double>{0.915});
    EXPECT_EQ(value_of(cupti, "duration"), std::optional<double>{62080e-9});
    EXPECT_EQ(value_of(cupti, "dram_bytes_read"), std::optional<double>{134217728.0});
    EXPECT_EQ(value_of(cupti, "dram_bytes_write"), std::optional<double>{67108864.0});
    EXPECT_FALSE(value_of(cupti, "l2_hit_rate")) << cupti.note;
    EXPECT_FALSE(value_of(cupti, "ipc"));
    EXPECT_NE(cupti.note.find("ipc (sm__inst_executed.avg.per_cycle_active): not a metric of chip FAKE"),
              std::string::npos) << cupti.note;
    EXPECT_FALSE(std::filesystem::exists(dir / "ncu" / "request.json")) << "ncu started in the steady state";

    // Tool ncu ([profile] tool = "ncu"): Nsight Compute reads them, CUPTI is not the source.
    auto chosen = ask(profile_for("pass", {"l2_hit_rate", "global_store_efficiency"}, config::profile_tool::ncu));
    EXPECT_EQ(chosen.source, gpu::metric_source::ncu) << chosen.note;
    EXPECT_EQ(value_of(chosen, "l2_hit_rate"), std::optional<double>{0.5}) << chosen.note;
    EXPECT_EQ(value_of(chosen, "global_store_efficiency"), std::optional<double>{0.125}) << chosen.note;
    EXPECT_TRUE(std::filesystem::exists(dir / "ncu" / "request.json"));

    // Counters restricted: ncu alone, and the note says why.
    auto via_ncu = ask(profile_for("restricted", {"dram_throughput", "l2_hit_rate"}));
    EXPECT_EQ(via_ncu.source, gpu::metric_source::ncu) << via_ncu.note;
    EXPECT_EQ(value_of(via_ncu, "l2_hit_rate"), std::optional<double>{0.5});
    EXPECT_FALSE(value_of(via_ncu, "dram_throughput"));
    EXPECT_NE(via_ncu.note.find("CUPTI: counters_unavailable"), std::string::npos) << via_ncu.note;
    EXPECT_NE(via_ncu.note.find("dram_throughput (dram__throughput.avg.pct_of_peak_sustained_elapsed): not in "
                                "ncu's output"),
              std::string::npos) << via_ncu.note;

    // A kernel that faults under the profiler is not handed to ncu, and the worker carries on.
    auto lost = ask(profile_for("lost_context", {"dram_throughput"}));
    EXPECT_FALSE(lost.source.has_value());
    EXPECT_TRUE(lost.values.empty());
    EXPECT_NE(lost.note.find("the kernel itself failed"), std::string::npos) << lost.note;
    auto after = ask(profile_for("pass", {"dram_throughput"}));
    EXPECT_EQ(after.source, gpu::metric_source::cupti) << after.note;
    EXPECT_TRUE(after.note.find("ncu") == std::string::npos) << "nothing left for ncu: " << after.note;

    // Only unknown keys: nothing to collect, and it says which.
    auto unknown = ask(profile_for("pass", {"nonsense"}));
    EXPECT_FALSE(unknown.source.has_value());
    EXPECT_NE(unknown.note.find("nonsense"), std::string::npos) << unknown.note;

    self->request(worker, 10s, messages::status_atom::value)
      .receive(
        [&](const messages::component_status& s) {
          std::map<std::string, std::int64_t> counters;
          for (const auto& c : s.counters)
            counters[c.name] = c.value;
          EXPECT_EQ(counters["profiles"], 6);
          EXPECT_EQ(counters["runner_restarts"], 1) << "the lost context";
        },
        [&](caf::error& e) { ADD_FAILURE() << system.render(e); });
    self->send(worker, messages::stop_atom::value);
    self->wait_for(worker);
  }
  rt->stop();
}

TEST_F(GpuWorker, WithoutNcuRestrictedCountersGiveNoMetricsAndSaySoPlainly) {
  auto rt = start_runtime();
  ASSERT_TRUE(rt);
  auto& system = rt->system();
  {
    auto config = worker_config(1);
    config.ncu = std::filesystem::path{}; // no fallback
    auto worker = system.spawn<caf::detached>(gpu_worker, config);
    caf::scoped_actor self{system};
    self->request(worker, 10s, profile_for("restricted", {}))
      .receive(
        [&](const gpu::metric_set& set) {
          EXPECT_FALSE(set.source.has_value());
          EXPECT_TRUE(set.values.empty());
          EXPECT_NE(set.note.find("counters_unavailable"), std::string::npos) << set.note;
          EXPECT_NE(set.note.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << set.note;
          EXPECT_NE(set.note.find("no ncu fallback"), std::string::npos) << set.note;
        },
        [&](caf::error& e) { ADD_FAILURE() << system.render(e); });
    // The run path is untouched by profiling.
    self->request(worker, 10s, race_order_for(behaving("pass")))
      .receive([&](const messages::race_reply& r) {
                 EXPECT_EQ(r.result.kernels.at(0).outcome, vocabulary::branch_outcome::passed);
               },
               [&](caf::error& e) { ADD_FAILURE() << system.render(e); });
    self->send(worker, messages::stop_atom::value);
    self->wait_for(worker);
  }
  rt->stop();
}

} // namespace
} // namespace warpforge::actors
