// The whole pipeline in one process, under its supervisor, on two stand-in GPUs
// (tests/gpu/fake_runner.cpp, mode campaign: every kernel of a race answers a time drawn from its
// CUBIN's bytes, so a point always takes the same time): real NVRTC through a content cache, real
// SQLite, ZeroMQ, actors and runner processes.
//
// Each actor kind is made to die mid-campaign as from an unhandled exception (an exit message
// with that reason, the way CAF ends an actor whose handler threw); the supervisor restarts it,
// and the campaign must still end every branch exactly once with the champions of an undisturbed
// run. Past the restart budget the campaign ends cleanly, its reason recorded, and resumes.

#include "actors/compiler.hpp"
#include "actors/gpu_worker.hpp"
#include "actors/profiler.hpp"
#include "actors/proposer.hpp"
#include "actors/registry.hpp"
#include "actors/runtime.hpp"
#include "actors/sass_checker.hpp"
#include "actors/scheduler.hpp"
#include "actors/campaign.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <caf/exit_reason.hpp>
#include <caf/send.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <unistd.h>

namespace warpforge::actors {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

config::supervision_policy policy(std::uint32_t max_restarts) {
  config::supervision_policy p;
  p.max_restarts = max_restarts;
  p.window_s = 60;
  p.backoff_initial_ms = 20;
  p.backoff_factor = 2.0;
  p.backoff_max_ms = 200;
  return p;
}

gpu::device_info fake_gpu(int ordinal) {
  gpu::device_info d;
  d.ordinal = ordinal;
  d.name = "Fake GPU " + std::to_string(ordinal);
  d.uuid = "GPU-pipeline-test-" + std::to_string(::getpid()) + "-" + std::to_string(ordinal);
  d.sm_major = 9;
  d.sm_minor = 0;
  return d;
}

// One campaign run's outcome, read back from its store.
struct run_record {
  std::optional<pipeline::campaign_result> result;
  std::string error;                              // runtime::run's error (the supervisor gave up)
  std::map<std::string, std::vector<std::string>> champions; // job -> champion points, by iteration
  std::int64_t branches = 0;
  std::int64_t unended = 0;
  std::int64_t duplicates = 0;
  std::int64_t measured_twice = 0;
  std::int64_t passed_unmeasured = 0;
  std::vector<std::string> restarted;             // actor_restarted events' actors
  std::string campaign_state;
  std::string campaign_reason;
};

class Pipeline : public ::testing::Test {
protected:
  fs::path dir;
  fs::path run_dir;

  void SetUp() override {
    dir = fs::temp_directory_path() / ("wf-pipeline-" + std::to_string(::getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "locks");
  }
  void TearDown() override { fs::remove_all(dir); }

  config::campaign_spec campaign(std::uint32_t iterations, bool third_job = false) {
    const auto file = dir / "campaign.toml";
    std::ofstream{file} << "name = \"crash-test\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml\"\n"
                        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/row_reduction/problem.toml\"\n"
                        << (third_job ? "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/softmax/problem.toml\"\n" : "")
                        << "[budget]\niterations = " << iterations << "\nbranches = 4\npatience = 10\n"
                        << "[proposer]\nkind = \"tune\"\nstrategy = \"random\"\nseed = 11\n"
                        // Every champion profiled: a crash meets a profile in flight.
                        << "[profile]\nchampions = \"each\"\n"
                        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
    auto spec = config::load_campaign(file);
    EXPECT_TRUE(spec);
    return *spec;
  }

  runtime_options options(const config::campaign_spec& spec, std::uint32_t max_restarts,
                          pipeline::compile_function compile = {}) {
    if (run_dir.empty()) {
      auto made = storage::run_directory::create(dir / "runs", spec.name, std::chrono::system_clock::now());
      EXPECT_TRUE(made);
      run_dir = made->path();
    }
    runtime_options o;
    o.database = run_dir / storage::run_directory::database_file;
    o.feed.publisher.endpoint = "tcp://127.0.0.1:*";
    o.feed.campaign = spec.name;
    o.supervision = policy(max_restarts);
    pipeline_options p;
    for (int i = 0; i < 2; ++i) {
      gpu_worker_config w;
      w.device = fake_gpu(i);
      w.keeper.runner.executable = WARPFORGE_FAKE_RUNNER_PATH;
      w.keeper.runner.extra_env = {{"WARPFORGE_FAKE_RUNNER_MODE", "campaign"},
                                   {"WARPFORGE_FAKE_RUNNER_DELAY_MS", std::to_string(race_delay_ms)}};
      w.keeper.restarts = policy(max_restarts);
      w.lock_dir = dir / "locks";
      w.lock_holder = "pipeline_test";
      w.ncu = fs::path{}; // no ncu fallback
      p.workers.push_back(std::move(w));
    }
    p.compilers = compilers;
    if (compile) {
      p.compile = std::move(compile);
    } else {
      auto cached = std::make_shared<gpu::cached_compiler>(gpu::compile_cache{fs::temp_directory_path() / "wf-pipeline-test-cache"});
      p.compile = [cached](const gpu::compile_request& r) { return cached->compile(r); };
    }
    p.spec = std::make_shared<const config::campaign_spec>(spec); // parsed once, like the command's
    p.proposer = spec.proposer;
    p.scheduler.compilers = compilers;
    p.scheduler.tick = 50ms;
    p.scheduler.retry_delay = 20ms;
    p.scheduler.tuner_cache = dir / "tuner-cache.db";
    o.pipeline = std::move(p);
    return o;
  }

  messages::campaign_plan plan_for(const config::campaign_spec& spec, bool resume) {
    messages::campaign_plan plan;
    plan.name = spec.name;
    plan.spec_path = (dir / "campaign.toml").string();
    plan.spec_toml = spec.raw_text;
    plan.run_dir = run_dir.string();
    plan.gpus = {fake_gpu(0), fake_gpu(1)};
    plan.resume = resume;
    return plan;
  }

  std::int64_t count(storage::database& db, const std::string& sql) {
    auto n = db.raw().query_int64(sql);
    return n ? *n : -1;
  }

  run_record read_back(std::optional<pipeline::campaign_result> result, std::string error) {
    run_record r;
    r.result = std::move(result);
    r.error = std::move(error);
    auto db = storage::database::open_read_only(run_dir / storage::run_directory::database_file);
    EXPECT_TRUE(db);
    r.branches = count(*db, "SELECT count(*) FROM branches");
    r.unended = count(*db, "SELECT count(*) FROM branches WHERE outcome IS NULL");
    r.duplicates = count(*db, "SELECT count(*) FROM (SELECT iteration_id, ordinal FROM branches GROUP BY "
                              "iteration_id, ordinal HAVING count(*) > 1)");
    r.measured_twice = count(*db, "SELECT count(*) FROM (SELECT branch_id FROM measurements GROUP BY branch_id "
                                  "HAVING count(*) > 1)");
    r.passed_unmeasured = count(*db, "SELECT count(*) FROM branches b WHERE b.outcome = 'passed' AND NOT EXISTS "
                                     "(SELECT 1 FROM measurements m WHERE m.branch_id = b.id)");
    auto rows = db->raw().prepare("SELECT j.name, i.number, b.defines_json FROM iterations i JOIN jobs j ON "
                                  "i.job_id = j.id JOIN branches b ON b.id = i.champion_branch_id ORDER BY j.name, i.number");
    for (auto step = rows->step(); step && *step == storage::step_result::row; step = rows->step())
      r.champions[rows->column_text(0)].push_back(rows->column_text(2));
    auto events = db->events_since(0, 100000);
    for (const auto& e : *events)
      if (e.type == "actor_restarted") {
        const auto at = e.json.find("\"actor\":\"");
        r.restarted.push_back(e.json.substr(at + 9, e.json.find('"', at + 9) - at - 9));
      }
    auto state = db->raw().prepare("SELECT state, reason FROM campaigns ORDER BY id DESC LIMIT 1");
    if (state)
      if (auto step = state->step(); step && *step == storage::step_result::row) {
        r.campaign_state = state->column_text(0);
        r.campaign_reason = state->column_text(1);
      }
    return r;
  }

  // Runs the campaign; `disturb` runs on a thread beside it with the actor system.
  run_record run(const config::campaign_spec& spec, std::uint32_t max_restarts,
                 std::function<void(caf::actor_system&)> disturb = {}, bool resume = false,
                 pipeline::compile_function compile = {}) {
    auto rt = runtime::start(options(spec, max_restarts, std::move(compile)));
    EXPECT_TRUE(rt) << (rt ? "" : rt.error());
    if (!rt)
      return {};
    std::thread disturber;
    if (disturb)
      disturber = std::thread{[&] { disturb((*rt)->system()); }};
    auto result = (*rt)->run(plan_for(spec, resume), [] { return false; });
    if (disturber.joinable())
      disturber.join();
    (*rt)->stop();
    return read_back(result ? std::optional<pipeline::campaign_result>{*result} : std::nullopt,
                     result ? std::string{} : result.error());
  }

  // Waits until `n` branches have a measurement (the campaign is mid-way), at most 60 s.
  bool wait_for_measurements(std::int64_t n) {
    for (auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(10ms)) {
      auto db = storage::database::open_read_only(run_dir / storage::run_directory::database_file);
      if (db && count(*db, "SELECT count(*) FROM measurements") >= n)
        return true;
    }
    return false;
  }

  // Kills `name` as an escaped exception would, `times` times in a row: each crash waits until the
  // supervisor has registered a new incarnation (a handle other than the one killed last), so a
  // crash never lands twice on the same dead actor however slowly the supervisor handles the
  // first one's down message. Returns how many crashes it landed before `patience` ran out.
  static int crash_each_incarnation(caf::actor_system& system, const std::string& name, int times,
                                    std::chrono::seconds patience) {
    int crashes = 0;
    caf::actor_addr killed; // weak: a strong handle would keep the dead actor alive
    for (auto deadline = std::chrono::steady_clock::now() + patience;
         crashes < times && std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(5ms)) {
      auto handle = lookup<caf::actor>(system, name);
      if (!handle || handle.address() == killed)
        continue; // down and not yet restarted, or its down message not yet handled
      killed = handle.address();
      caf::anon_send_exit(handle, caf::exit_reason::unhandled_exception);
      ++crashes;
    }
    return crashes;
  }

  static void crash(caf::actor_system& system, const std::string& name) {
    auto handle = system.registry().get(registry_key(name));
    ASSERT_TRUE(handle) << name << " is not registered";
    caf::anon_send_exit(caf::actor_cast<caf::actor>(handle), caf::exit_reason::unhandled_exception);
  }

  void expect_whole(const run_record& r) {
    EXPECT_TRUE(r.result) << r.error;
    if (r.result) {
      EXPECT_EQ(r.result->kind, pipeline::campaign_result_kind::finished) << r.result->reason;
    }
    EXPECT_GT(r.branches, 10);
    EXPECT_EQ(r.unended, 0) << "a branch never ended";
    EXPECT_EQ(r.duplicates, 0) << "a branch recorded twice";
    EXPECT_EQ(r.measured_twice, 0) << "a branch measured twice";
    EXPECT_EQ(r.passed_unmeasured, 0) << "a passed branch without its measurement";
  }

  int race_delay_ms = 0;
  std::size_t compilers = 2;
};

class PipelineCrash : public Pipeline, public ::testing::WithParamInterface<std::string> {};

TEST_P(PipelineCrash, AnActorThatDiesMidCampaignIsRestartedAndTheCampaignEndsAsIfUndisturbed) {
  const auto spec = campaign(3);
  race_delay_ms = 20; // slow enough that the crash lands mid-campaign, however warm the caches
  const auto undisturbed = run(spec, 3);
  expect_whole(undisturbed);
  ASSERT_FALSE(undisturbed.champions.empty());
  run_dir.clear();

  const std::string victim = GetParam();
  const auto disturbed = run(spec, 3, [&](caf::actor_system& system) {
    ASSERT_TRUE(wait_for_measurements(4)) << "the campaign did not get going";
    crash(system, victim);
  });
  expect_whole(disturbed);
  EXPECT_NE(std::find(disturbed.restarted.begin(), disturbed.restarted.end(), victim), disturbed.restarted.end())
    << victim << " was not restarted";
  EXPECT_EQ(disturbed.champions, undisturbed.champions);
}

INSTANTIATE_TEST_SUITE_P(EachActorKind, PipelineCrash,
                         ::testing::Values("compile.0", "sass.0", "proposer", "profiler", "gpu.0", "scheduler",
                                           "store", "feed", "campaign"),
                         [](const auto& test_param) { // not `info`: the macro's own parameter
                           auto name = test_param.param;
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

TEST_F(Pipeline, ACrashBeyondTheRestartBudgetEndsTheCampaignWithItsReasonAndItResumes) {
  const auto spec = campaign(3);
  race_delay_ms = 200; // slow enough that the campaign is still running when its budget is spent,
                       // however loaded the machine (ctest -j runs other tests beside it)
  const auto stopped = run(spec, 1, [&](caf::actor_system& system) {
    ASSERT_TRUE(wait_for_measurements(2));
    // More than max_restarts = 1 within the window: the second crash, of the restarted
    // compile.0, is one too many. (The 60 s only bound a broken restart; nothing waits them out.)
    EXPECT_EQ(crash_each_incarnation(system, "compile.0", 2, 60s), 2);
  });
  EXPECT_FALSE(stopped.result) << "the supervisor gave up: run() says so";
  EXPECT_NE(stopped.error.find("compile.0"), std::string::npos) << stopped.error;
  EXPECT_EQ(stopped.campaign_state, "failed");
  EXPECT_NE(stopped.campaign_reason.find("the supervisor gave up"), std::string::npos) << stopped.campaign_reason;
  EXPECT_NE(stopped.campaign_reason.find("compile.0"), std::string::npos) << stopped.campaign_reason;

  const auto resumed = run(spec, 3, {}, true);
  expect_whole(resumed);
  EXPECT_EQ(resumed.campaign_state, "finished");
}

// The compiler pool through the real actors: compiles overlap (the engine hands the pool several
// at once) and the campaign ends whole. How long the GPUs wait for compiles depends on the
// machine's load, so it is printed here and asserted on a virtual clock instead
// (tests/pipeline/campaign_engine_test.cpp, CompilesRunAhead...).
TEST_F(Pipeline, TheCompilerPoolCompilesSeveralCandidatesAtOnce) {
  const auto spec = campaign(3, true); // more jobs than GPUs: there is always other work to race
  race_delay_ms = 150; // each kernel of a race takes 150 ms on the stand-in GPU
  compilers = 4;       // as many as cores on a GPU node (16 on the H100 machine)
  auto cached = std::make_shared<gpu::cached_compiler>(gpu::compile_cache{dir / "cache"});
  auto running = std::make_shared<std::atomic<int>>(0);
  auto most = std::make_shared<std::atomic<int>>(0);
  auto slow = [cached, running, most](const gpu::compile_request& r) {
    const int now_running = ++*running;
    for (int seen = most->load(); now_running > seen && !most->compare_exchange_weak(seen, now_running);) {
    }
    std::this_thread::sleep_for(100ms); // every compile takes 100 ms more than NVRTC's own
    auto out = cached->compile(r);
    --*running;
    return out;
  };
  const auto r = run(spec, 3, {}, false, slow);
  expect_whole(r);
  ASSERT_TRUE(r.result);
  const double gpu_time = r.result->wall_s * 2;
  std::printf("compile pool: up to %d compiles at once; %.2f s of %.2f s GPU time waiting for compiles (%.1f%%), "
              "workers occupied %.0f%%\n",
              most->load(), r.result->gpu_wait_for_compile_s, gpu_time,
              100 * r.result->gpu_wait_for_compile_s / gpu_time, 100 * r.result->worker_occupancy);
  EXPECT_GE(most->load(), 2) << "the compiler actors compile in parallel";
}

} // namespace
} // namespace warpforge::actors
