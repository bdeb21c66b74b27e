// The campaign engine on its own, no actors and no GPU: every order it gives is answered by the
// test (compiles pass without compiling, races answer a time drawn from each kernel's point), and
// what it records and decides is checked. The real proposer (the tuner) answers the proposals.

#include "pipeline/campaign_engine.hpp"

#include "pipeline/tune_proposer.hpp"
#include "tuning/point_text.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace warpforge::pipeline {
namespace {

namespace fs = std::filesystem;
using vocabulary::branch_outcome;

gpu::device_info fake_gpu(int ordinal) {
  gpu::device_info d;
  d.ordinal = ordinal;
  d.name = "Fake GPU";
  d.sm_major = 9;
  d.sm_minor = 0;
  return d;
}

class CampaignEngine : public ::testing::Test {
protected:
  fs::path dir;

  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("wf-engine-" + std::string{::testing::UnitTest::GetInstance()->current_test_info()->name()});
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  campaign_setup setup(std::uint32_t iterations, std::size_t gpus, bool third_job = false) {
    const auto file = dir / "campaign.toml";
    std::ofstream{file} << "name = \"engine\"\nrun_root = \"" << dir.string() << "\"\n"
                        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml\"\n"
                        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/row_reduction/problem.toml\"\n"
                        << (third_job ? "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml\"\n" : "")
                        << "[budget]\niterations = " << iterations << "\nbranches = 4\npatience = 10\n"
                        << "[proposer]\nkind = \"tune\"\nstrategy = \"random\"\n";
    return setup_of(file, gpus, third_job ? 3 : 2);
  }

  // `count` jobs over the three example problems in turn, named j0, j1, ...
  campaign_setup setup_many(std::size_t count, std::uint32_t iterations, std::size_t gpus) {
    const auto file = dir / "campaign.toml";
    std::ofstream out{file};
    out << "name = \"engine\"\nrun_root = \"" << dir.string() << "\"\n";
    const char* problems[] = {"transpose", "row_reduction", "vector_add"};
    for (std::size_t j = 0; j < count; ++j)
      out << "[[jobs]]\nname = \"j" << j << "\"\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/" << problems[j % 3]
          << "/problem.toml\"\n";
    out << "[budget]\niterations = " << iterations << "\nbranches = 4\npatience = 10\n"
        << "[proposer]\nkind = \"tune\"\nstrategy = \"random\"\n";
    out.close();
    return setup_of(file, gpus, count);
  }

  // The campaign in `file` on `gpus` fake GPUs, its jobs' rows numbered 1 to `jobs`.
  campaign_setup setup_of(const fs::path& file, std::size_t gpus, std::size_t jobs) {
    auto spec = config::load_campaign(file);
    EXPECT_TRUE(spec);
    campaign_setup s;
    s.spec = *spec;
    s.run_dir = dir / "run";
    for (std::size_t i = 0; i < gpus; ++i)
      s.gpus.push_back(fake_gpu(static_cast<int>(i)));
    s.why_no_gpu = "none in this test";
    for (std::size_t j = 0; j < jobs; ++j)
      s.job_ids.push_back(static_cast<std::int64_t>(j + 1));
    return s;
  }

  std::vector<job_setup> jobs(const campaign_setup& s) {
    std::vector<job_setup> out;
    for (const auto& j : s.spec.jobs) {
      auto job = open_job(j.name, j.problem_path, j.problem);
      EXPECT_TRUE(job) << job.error();
      out.push_back(std::move(*job));
    }
    return out;
  }
};

// Answers every order, in the order given or reversed; races get a time drawn from each
// kernel's CUBIN path (the branch's point decides it), so a point always takes the same time.
struct answering_loop {
  campaign_engine& engine;
  tune_proposer proposer{config::search_strategy::random, 1};
  bool reversed = false;
  std::vector<store_write> writes;
  std::vector<feed::event> events;
  std::map<std::string, std::string> point_of_cubin; // cubin path -> point text
  std::size_t races = 0;
  std::size_t profiles = 0;
  bool time_scales_with_size = false;          // a kernel's time x its first buffer's Mi elements
  std::vector<std::uint64_t> raced_elements;   // per race request: its first buffer's elements
  std::vector<std::vector<std::string>> raced_cubins; // per race request: its kernels' CUBINs
  std::map<std::string, std::vector<config::profile_tool>> tool_by_job; // per profile, in order
  std::set<int> out_of_service;                // GPUs whose worker answers out of service
  std::vector<std::pair<branch_ref, int>> profiled_on; // per profile sent: the branch and the GPU
  bool lose_the_first_profiles_gpu = false;    // its worker is out of service from that profile on
  std::size_t lost_batch = 0;                  // profiles sent with that one, to its GPU (one batch)
  int lose_at_its_first_profile = -1;          // this GPU's worker likewise, at its first profile
  std::vector<std::pair<std::int64_t, std::size_t>> memory_sent; // per proposal: memory_from, entries
  bool baselines_fail = false;                 // a race of one kernel (a baseline) ends incorrect

  double time_of(const std::string& cubin) const {
    auto it = point_of_cubin.find(cubin);
    const auto text = it == point_of_cubin.end() ? cubin : it->second;
    return 1e-3 * (0.5 + static_cast<double>(std::hash<std::string>{}(text) % 1000) / 1000.0);
  }

  void answer_compile(ticket id, const compile_order& order) {
    if (!order.keep_files) { // compiled ahead into the cache: nothing to time
      built_kernel ahead;
      ahead.ref = order.ref;
      ahead.outcome = branch_outcome::passed;
      engine.built(id, ahead);
      return;
    }
    built_kernel k;
    k.ref = order.ref;
    k.outcome = branch_outcome::passed;
    k.arch = order.request.arch;
    k.cubin_path = order.output_dir + "/" + order.file_stem + ".cubin";
    std::string point;
    for (const auto& d : order.request.defines)
      point += d.name + "=" + d.value + ",";
    point_of_cubin[k.cubin_path] = point + order.request.source.substr(0, 16);
    engine.built(id, k);
  }

  static sass_verdict every_method_present(const sass_order& order) {
    sass_verdict v;
    v.ref = order.ref;
    for (const auto& m : order.methods)
      v.methods.push_back({m, sass::method_presence::present, "", "", 1});
    return v;
  }

  void answer_profile(ticket id) {
    ++profiles;
    diagnosis_summary none;
    none.note = "no counters in this test";
    engine.profiled(id, none);
  }

  static std::uint64_t first_buffer_elements(const gpu::race_request& request) {
    for (const auto& arg : request.args)
      if (const auto* b = std::get_if<gpu::candidate_buffer_arg>(&arg))
        return b->count;
    return 0;
  }

  void answer_race(const race_dispatch& r) {
    if (out_of_service.count(r.gpu))
      return engine.gpu_out_of_service(r.id, r.gpu, "gpu." + std::to_string(r.gpu) + " is out of service: test");
    ++races;
    const auto elements = first_buffer_elements(r.request);
    raced_elements.push_back(elements);
    auto& cubins = raced_cubins.emplace_back();
    gpu::race_result result;
    for (const auto& k : r.request.kernels) {
      cubins.push_back(k.cubin_path.string());
      gpu::kernel_result kr;
      kr.outcome = baselines_fail && r.request.kernels.size() == 1 ? branch_outcome::incorrect : branch_outcome::passed;
      kr.stats.count = 20;
      kr.stats.median_s = time_of(k.cubin_path.string()) *
                          (time_scales_with_size ? static_cast<double>(elements) / (1 << 20) : 1.0);
      kr.stats.median_ci = {kr.stats.median_s * 0.999, kr.stats.median_s * 1.001, 0.95};
      kr.kernel_s = 20 * kr.stats.median_s;
      result.kernels.push_back(kr);
    }
    engine.raced(r.id, fake_gpu(r.gpu), result, 0.01);
  }

  void run() {
    for (int guard = 0; guard < 10000 && !engine.finished(); ++guard)
      answer(engine.take_outbox());
    auto out = engine.take_outbox();
    writes.insert(writes.end(), out.writes.begin(), out.writes.end());
    events.insert(events.end(), out.events.begin(), out.events.end());
  }

  void answer(outbox out) {
    {
      writes.insert(writes.end(), out.writes.begin(), out.writes.end());
      events.insert(events.end(), out.events.begin(), out.events.end());
      if (reversed) {
        std::reverse(out.compiles.begin(), out.compiles.end());
        std::reverse(out.races.begin(), out.races.end());
      }
      for (auto& [id, order] : out.compiles)
        answer_compile(id, order);
      for (auto& [id, order] : out.sass_checks)
        engine.checked(id, every_method_present(order));
      for (auto& p : out.proposals) {
        memory_sent.emplace_back(p.request.memory_from, p.request.memory.size());
        engine.proposed(p.id, proposer.propose(p.request));
      }
      for (auto& r : out.races)
        answer_race(r);
      for (auto& p : out.profiles) {
        tool_by_job[p.ref.job].push_back(p.tool);
        profiled_on.emplace_back(p.ref, p.device.ordinal);
        if (std::exchange(lose_the_first_profiles_gpu, false)) {
          lost_batch = static_cast<std::size_t>(std::count_if(out.profiles.begin(), out.profiles.end(), [&](const auto& q) {
            return q.device.ordinal == p.device.ordinal;
          }));
          out_of_service.insert(p.device.ordinal);
        }
        if (p.device.ordinal == lose_at_its_first_profile)
          out_of_service.insert(p.device.ordinal);
        if (out_of_service.count(p.device.ordinal)) {
          diagnosis_summary none;
          none.note = none.why_out_of_service = "gpu." + std::to_string(p.device.ordinal) + " is out of service: test";
          none.service = gpu::worker_service::out_of_service;
          engine.profiled(p.id, none);
          continue;
        }
        answer_profile(p.id);
      }
      if (out.empty())
        engine.tick();
    }
  }

  // Champion points per job, in iteration order.
  std::map<std::int64_t, std::vector<std::string>> champions() const {
    std::map<std::pair<std::int64_t, std::pair<std::int64_t, std::int64_t>>, std::string> points; // job,(iter,ordinal)
    for (const auto& w : writes)
      if (const auto* b = std::get_if<storage::branch_record>(&w))
        points[{b->key.job_id, {b->key.iteration, b->key.ordinal}}] = b->defines_json;
    std::map<std::int64_t, std::vector<std::string>> out;
    for (const auto& w : writes)
      if (const auto* u = std::get_if<storage::iteration_update>(&w); u && u->finished && u->champion_ordinal >= 0)
        out[u->job_id].push_back(points[{u->job_id, {u->number, u->champion_ordinal}}]);
    return out;
  }
};

TEST_F(CampaignEngine, EveryBranchIsRecordedAndEndsExactlyOnceAndEveryJobStops) {
  auto s = setup(3, 2);
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  loop.run();
  ASSERT_TRUE(engine.finished());
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, int> recorded, ended;
  for (const auto& w : loop.writes) {
    if (const auto* b = std::get_if<storage::branch_record>(&w))
      ++recorded[{b->key.job_id, b->key.iteration, b->key.ordinal}];
    if (const auto* o = std::get_if<storage::branch_outcome_change>(&w))
      ++ended[{o->key.job_id, o->key.iteration, o->key.ordinal}];
  }
  EXPECT_GT(recorded.size(), 10u);
  EXPECT_EQ(recorded.size(), ended.size());
  for (const auto& [key, n] : ended)
    EXPECT_EQ(n, 1) << "branch " << std::get<1>(key) << "/" << std::get<2>(key) << " of job " << std::get<0>(key);
  std::set<std::int64_t> finished_jobs;
  for (const auto& w : loop.writes)
    if (const auto* j = std::get_if<storage::job_state_change>(&w); j && j->state == vocabulary::job_state::finished)
      finished_jobs.insert(j->job_id);
  EXPECT_EQ(finished_jobs, (std::set<std::int64_t>{1, 2}));
  EXPECT_EQ(engine.result().kind, campaign_result_kind::finished);
  EXPECT_GT(engine.result().measured, 0u);
}

TEST_F(CampaignEngine, TheChampionsDoNotDependOnTheOrderAnswersArriveIn) {
  auto s = setup(3, 2);
  campaign_engine forward_engine{s, jobs(s), [] { return 0.0; }};
  forward_engine.start();
  answering_loop forward{forward_engine};
  forward.run();
  campaign_engine reversed_engine{s, jobs(s), [] { return 0.0; }};
  reversed_engine.start();
  answering_loop reversed{reversed_engine};
  reversed.reversed = true;
  reversed.run();
  EXPECT_FALSE(forward.champions().empty());
  EXPECT_EQ(forward.champions(), reversed.champions());
}

TEST_F(CampaignEngine, RacesPutTheIncumbentFirstOnceTheBaselineIsKnown) {
  auto s = setup(2, 1);
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  std::size_t with_incumbent = 0;
  // Look at the races as they are given.
  for (int guard = 0; guard < 1000 && !engine.finished(); ++guard) {
    auto out = engine.take_outbox();
    for (auto& r : out.races)
      with_incumbent += r.request.kernels.size() > 1;
    loop.answer(std::move(out));
  }
  EXPECT_GT(with_incumbent, 0u);
}

TEST_F(CampaignEngine, EachGpuIsLeasedAndReleasedInTurnForRacesAndProfilesAlike) {
  auto s = setup(3, 2);
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  loop.run();
  ASSERT_TRUE(engine.finished());
  ASSERT_GT(loop.profiles, 0u) << "the campaign should profile its champions";
  std::map<int, int> leased, held; // gpu -> leases open, and how many its current lease may hold
  std::size_t leases = 0;
  for (const auto& e : loop.events) {
    if (e.type == feed::event_type::gpu_leased) {
      // A batch of profiles is one lease per profile, each saying the batch's size; a race is
      // one lease, never beside another.
      const bool profile = e.detail_json.find("\"profile\":true") != std::string::npos;
      const auto batch = e.detail_json.find("\"batch\":");
      if (leased[e.gpu] == 0)
        held[e.gpu] = profile && batch != std::string::npos ? std::stoi(e.detail_json.substr(batch + 8)) : 1;
      EXPECT_TRUE(leased[e.gpu] == 0 || profile) << "GPU " << e.gpu << " raced while leased (job " << e.job << ")";
      EXPECT_LT(leased[e.gpu]++, held[e.gpu]) << "GPU " << e.gpu << " leased again before its release (job " << e.job << ")";
      ++leases;
    }
    if (e.type == feed::event_type::gpu_released)
      EXPECT_GE(leased[e.gpu]--, 1) << "GPU " << e.gpu << " released without a lease";
  }
  for (const auto& [gpu, open] : leased)
    EXPECT_EQ(open, 0) << "GPU " << gpu << " still leased at the end";
  EXPECT_EQ(leases, loop.races + loop.profiles);
  const auto result = engine.result();
  ASSERT_EQ(result.gpus.size(), 2u);
  std::uint64_t races = 0, profiles = 0;
  for (const auto& g : result.gpus) {
    races += g.races;
    profiles += g.profiles;
    EXPECT_GT(g.kernel_s, 0.0) << "GPU " << g.ordinal << " timed kernels";
  }
  EXPECT_EQ(races, loop.races);
  EXPECT_EQ(profiles, loop.profiles);
}

// [profile] tool reaches every profile order: CUPTI by default (no ncu start-up in the steady
// state), Nsight Compute for every profile when the spec asks for it.
TEST_F(CampaignEngine, EveryProfileIsReadByTheToolTheSpecNames) {
  for (const auto tool : config::all_profile_tools) {
    auto s = setup(3, 2);
    s.spec.profiled_champions = config::champion_profiles::each; // more than one profile a job
    if (tool == config::profile_tool::ncu)
      s.spec = *config::parse_campaign(s.spec.raw_text + "[profile]\ntool = \"ncu\"\nchampions = \"each\"\n",
                                       dir / "campaign.toml");
    ASSERT_EQ(s.spec.profiler, tool);
    campaign_engine engine{s, jobs(s), [] { return 0.0; }};
    engine.start();
    answering_loop loop{engine};
    loop.run();
    ASSERT_TRUE(engine.finished());
    std::size_t most_profiles = 0;
    for (const auto& [job, tools] : loop.tool_by_job) {
      most_profiles = std::max(most_profiles, tools.size());
      for (std::size_t i = 0; i < tools.size(); ++i)
        EXPECT_EQ(tools[i], tool) << job << ": profile " << i + 1;
    }
    EXPECT_GE(most_profiles, 2u) << "a job profiled more than one champion";
  }
}

// A problem measured at two configurations (vector_add at 4 Mi elements, weight 3, and at 1 Mi,
// weight 1): every race is run at both, the large one first, on the same GPU, and every time
// recorded is the weighted sum of the two medians; the report's row and the event show both.
TEST_F(CampaignEngine, AProblemWithTwoConfigsRacesEveryCandidateAtBothAndTimesItAsTheWeightedSum) {
  std::ifstream example{WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml"};
  std::stringstream text;
  text << example.rdbuf();
  auto problem = text.str();
  problem.replace(problem.find("\"kernel.cu\""), 11, "\"" WARPFORGE_SOURCE_DIR "/examples/vector_add/kernel.cu\"");
  std::ofstream{dir / "problem.toml"} << problem << "\n[[configs]]\nname = \"large\"\nweight = 3\ndims = { N = 4194304 }\n"
                                      << "[[configs]]\nname = \"small\"\nweight = 1\ndims = { N = 1048576 }\n";
  std::ofstream{dir / "campaign.toml"} << "name = \"configs\"\nrun_root = \"" << dir.string() << "\"\n"
                                       << "[[jobs]]\nproblem = \"problem.toml\"\n"
                                       << "[budget]\niterations = 2\nbranches = 3\npatience = 10\n"
                                       << "[proposer]\nkind = \"tune\"\nstrategy = \"random\"\n";
  auto spec = config::load_campaign(dir / "campaign.toml");
  ASSERT_TRUE(spec) << toml_reader::to_string(spec.error());
  campaign_setup s;
  s.spec = *spec;
  s.run_dir = dir / "run";
  s.gpus = {fake_gpu(0)};
  s.job_ids = {1};
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  loop.time_scales_with_size = true;
  loop.run();
  ASSERT_TRUE(engine.finished());

  // Every race went to "large" then "small", with the same kernels (none failed).
  ASSERT_GE(loop.raced_elements.size(), 4u);
  ASSERT_EQ(loop.raced_elements.size() % 2, 0u);
  for (std::size_t i = 0; i < loop.raced_elements.size(); i += 2) {
    EXPECT_EQ(loop.raced_elements[i], 4194304u) << "request " << i;
    EXPECT_EQ(loop.raced_elements[i + 1], 1048576u) << "request " << i + 1;
    EXPECT_EQ(loop.raced_cubins[i], loop.raced_cubins[i + 1]);
  }
  // Every measurement is 0.75 x its median at "large" + 0.25 x its median at "small".
  std::size_t measured = 0;
  for (const auto& w : loop.writes)
    if (const auto* m = std::get_if<storage::measurement_record>(&w)) {
      const auto cubin = branch_folder(s.run_dir, s.spec.jobs[0].name, m->key.iteration, m->key.ordinal) / "kernel-sm_90.cubin";
      const double t = loop.time_of(cubin.string());
      EXPECT_NEAR(m->median_s, 0.75 * 4 * t + 0.25 * 1 * t, 1e-12) << cubin;
      EXPECT_NEAR(m->ci95_low_s, 0.999 * m->median_s, 1e-12);
      ++measured;
    }
  EXPECT_GT(measured, 2u);
  // The branch row and its event say what the weighted time is made of; profiles run at "large".
  std::size_t rows = 0, events = 0, profiles = 0;
  for (const auto& w : loop.writes)
    if (const auto* o = std::get_if<storage::branch_outcome_change>(&w); o && o->outcome == branch_outcome::passed)
      rows += o->detail.starts_with("per config: large ") && o->detail.find(", small ") != std::string::npos;
  for (const auto& e : loop.events) {
    if (e.type == feed::event_type::branch_measured)
      events += e.detail_json.find("\"configs\":[{\"config\":\"large\",\"weight\":0.75") != std::string::npos;
    if (e.type == feed::event_type::gpu_leased && e.detail_json.find("\"profile\":true") != std::string::npos)
      profiles += e.detail_json.find("\"config\":\"large\"") != std::string::npos;
  }
  EXPECT_EQ(rows, measured);
  EXPECT_EQ(events, measured);
  EXPECT_EQ(profiles, loop.profiles);
  EXPECT_GT(profiles, 0u);
}

// A resume of a campaign whose jobs all ended, one of them failed, has nothing to do: it must end
// failed with that reason, never finished (issue: "finished in 0.0 s ... exit 0").
TEST_F(CampaignEngine, AResumeWithNothingLeftToDoKeepsAJobsEarlierFailure) {
  auto s = setup(2, 1);
  earlier_run earlier;
  report::job_entry failed;
  failed.row.id = 1;
  failed.row.state = vocabulary::job_state::failed;
  failed.row.reason = "the baseline (the default point) did not pass: interrupted";
  report::job_entry finished;
  finished.row.id = 2;
  finished.row.state = vocabulary::job_state::finished;
  earlier.report.jobs = {failed, finished};
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start(earlier);
  answering_loop loop{engine};
  loop.run();
  ASSERT_TRUE(engine.finished());
  EXPECT_EQ(engine.result().kind, campaign_result_kind::failed);
  EXPECT_NE(engine.result().reason.find("the baseline (the default point) did not pass"), std::string::npos)
    << engine.result().reason;
  EXPECT_EQ(loop.races, 0u) << "nothing was left to measure";
}

// The tuner's first proposal reads no time: every job asks it at the start, so its branches are
// built while the baselines race. A baseline that then fails ends them with its job.
TEST_F(CampaignEngine, TheTunersFirstProposalsAreAskedAtTheStartAndAFailedBaselineEndsThemNotRun) {
  auto s = setup(2, 1);
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  auto first = engine.take_outbox();
  ASSERT_EQ(first.proposals.size(), 2u) << "one per job, before any race";
  for (const auto& p : first.proposals) {
    EXPECT_EQ(p.request.iteration, 1);
    EXPECT_FALSE(p.request.best_s);
  }
  answering_loop loop{engine};
  loop.baselines_fail = true;
  loop.answer(std::move(first));
  loop.run();
  ASSERT_TRUE(engine.finished());
  EXPECT_EQ(engine.result().kind, campaign_result_kind::failed);
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, int> recorded;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, branch_outcome> ended;
  std::size_t with_the_job = 0;
  for (const auto& w : loop.writes) {
    if (const auto* b = std::get_if<storage::branch_record>(&w))
      ++recorded[{b->key.job_id, b->key.iteration, b->key.ordinal}];
    if (const auto* o = std::get_if<storage::branch_outcome_change>(&w)) {
      EXPECT_FALSE(ended.contains({o->key.job_id, o->key.iteration, o->key.ordinal})) << "ended twice";
      ended[{o->key.job_id, o->key.iteration, o->key.ordinal}] = o->outcome;
      if (o->key.ordinal > 0) {
        EXPECT_EQ(o->outcome, branch_outcome::not_run);
        EXPECT_NE(o->detail.find("its job failed: the baseline"), std::string::npos) << o->detail;
        ++with_the_job;
      }
    }
  }
  EXPECT_EQ(recorded.size(), ended.size()) << "no branch is left looking in flight";
  EXPECT_EQ(with_the_job, recorded.size() - 2) << "every branch but the two baselines ended with its job";
  EXPECT_GE(with_the_job, 2u);
  EXPECT_EQ(loop.races, 2u) << "only the baselines raced";
}

TEST_F(CampaignEngine, WithoutAGpuTheBaselineAndFirstProposalAreBuiltAndEndNotRunWithTheReason) {
  auto s = setup(3, 0);
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  loop.run();
  ASSERT_TRUE(engine.finished());
  EXPECT_EQ(loop.races, 0u);
  std::size_t not_run = 0;
  for (const auto& w : loop.writes)
    if (const auto* o = std::get_if<storage::branch_outcome_change>(&w)) {
      EXPECT_EQ(o->outcome, branch_outcome::not_run);
      EXPECT_NE(o->detail.find("measurements need a GPU (none in this test)"), std::string::npos) << o->detail;
      ++not_run;
    }
  EXPECT_GE(not_run, 2u * (1 + 1)) << "each job's baseline and at least one proposed branch";
  EXPECT_EQ(engine.result().kind, campaign_result_kind::failed);
  std::map<std::pair<std::int64_t, std::int64_t>, vocabulary::iteration_state> iterations; // last state
  for (const auto& w : loop.writes)
    if (const auto* u = std::get_if<storage::iteration_update>(&w))
      iterations[{u->job_id, u->number}] = u->state;
  ASSERT_FALSE(iterations.empty());
  for (const auto& [key, state] : iterations)
    EXPECT_EQ(state, vocabulary::iteration_state::failed) << "job " << key.first << " iteration " << key.second
                                                          << " must not stay running after its job failed";
}

// The pipeline's stages on a virtual clock, with fixed costs: `compilers` compile workers (a
// compile takes compile_s, compiles ahead included; a kernel compiled before is a cache hit and
// takes nothing), one worker per GPU (a race takes race_s per
// kernel), SASS checks and proposals at once. Whether the GPUs wait for compiles is then a
// property of the engine's planning alone, however loaded the machine running the test.
struct simulated_pipeline {
  campaign_engine& engine;
  answering_loop& answers;
  double& clock;
  std::size_t compilers = 4;
  double compile_s = 0.1;
  double race_s = 0.15;
  double profile_s = 0.15; // a batch of one; each further kernel adds a tenth

  std::multimap<double, std::function<void()>> due; // completions by virtual time
  std::deque<std::pair<ticket, compile_order>> waiting_compiles;
  std::size_t compiling = 0;
  std::set<std::string> cached; // the content cache: what was compiled (ahead or not) is a hit
  std::size_t profiles_in_flight = 0;    // batches: a GPU's profiles in one outbox
  std::size_t most_profiles_at_once = 0; // batches in flight at once
  std::size_t largest_batch = 0;

  static std::string cache_key(const compile_order& order) {
    std::string key = order.request.arch + "|" + order.request.source;
    for (const auto& d : order.request.defines)
      key += "|" + d.name + "=" + d.value;
    return key;
  }

  void start_compile(ticket id, compile_order order) {
    ++compiling;
    due.emplace(clock + compile_s, [this, id, order] {
      --compiling;
      cached.insert(cache_key(order));
      answers.answer_compile(id, order);
      if (!waiting_compiles.empty()) {
        auto [next_id, next] = std::move(waiting_compiles.front());
        waiting_compiles.pop_front();
        start_compile(next_id, std::move(next));
      }
    });
  }

  void dispatch(outbox out) {
    answers.writes.insert(answers.writes.end(), out.writes.begin(), out.writes.end());
    answers.events.insert(answers.events.end(), out.events.begin(), out.events.end());
    for (auto& [id, order] : out.compiles) {
      if (cached.contains(cache_key(order)))
        due.emplace(clock, [this, id = id, order = order] { answers.answer_compile(id, order); });
      else if (compiling < compilers)
        start_compile(id, order);
      else
        waiting_compiles.emplace_back(id, order);
    }
    for (auto& [id, order] : out.sass_checks)
      due.emplace(clock, [this, id = id, v = answering_loop::every_method_present(order)] { engine.checked(id, v); });
    for (auto& p : out.proposals)
      due.emplace(clock, [this, p] { engine.proposed(p.id, answers.proposer.propose(p.request)); });
    for (auto& r : out.races)
      due.emplace(clock + race_s * static_cast<double>(r.request.kernels.size()), [this, r] { answers.answer_race(r); });
    // The profiles of one GPU in an outbox are one batch (the scheduler sends them together): one
    // profile's passes, plus a tenth of them for each further kernel; answered together.
    std::map<int, std::vector<ticket>> batches;
    for (auto& p : out.profiles)
      batches[p.device.ordinal].push_back(p.id);
    for (auto& [gpu, ids] : batches) {
      most_profiles_at_once = std::max(most_profiles_at_once, ++profiles_in_flight);
      largest_batch = std::max(largest_batch, ids.size());
      due.emplace(clock + profile_s * (1 + 0.1 * static_cast<double>(ids.size() - 1)), [this, ids = ids] {
        --profiles_in_flight;
        for (auto id : ids)
          answers.answer_profile(id);
      });
    }
  }

  void run() {
    dispatch(engine.take_outbox());
    for (int guard = 0; guard < 100000 && !engine.finished(); ++guard) {
      if (due.empty()) {
        engine.tick();
      } else {
        auto next = due.begin();
        clock = next->first;
        auto complete = std::move(next->second);
        due.erase(next);
        complete();
      }
      dispatch(engine.take_outbox());
    }
  }
};

// A campaign run to its end on the simulated pipeline, in virtual time.
struct simulated_run {
  double clock = 0.0;
  campaign_engine engine;
  answering_loop answers{engine};
  simulated_pipeline pipeline{engine, answers, clock};

  simulated_run(const campaign_setup& s, std::vector<job_setup> jobs)
      : engine{s, std::move(jobs), [this] { return clock; }} {
    engine.start();
    pipeline.run();
  }
};

// The runners open what the campaign will use before its first request, and CUPTI only where
// the profiles come early: a campaign that profiles only its jobs' ends (or never) does not make
// its first race wait for CUPTI (1.4-1.8 s on four GPUs at once).
TEST_F(CampaignEngine, RunnersWarmUpOnlyWhatTheCampaignWillUse) {
  auto s = setup(1, 1);
  EXPECT_EQ(runner_warm_up(campaign_mode::bench, s.spec), gpu::warm_up_level::none);
  EXPECT_EQ(runner_warm_up(campaign_mode::diagnose, s.spec), gpu::warm_up_level::profiler);
  for (const auto profiles : config::all_champion_profiles) {
    s.spec.profiled_champions = profiles;
    EXPECT_EQ(runner_warm_up(campaign_mode::optimize, s.spec),
              profiles == config::champion_profiles::each ? gpu::warm_up_level::profiler : gpu::warm_up_level::device)
      << config::to_string(profiles);
    EXPECT_EQ(runner_warm_up(campaign_mode::diagnose, s.spec), gpu::warm_up_level::profiler)
      << "diagnose profiles every job whatever [profile] champions says";
  }
}

TEST_F(CampaignEngine, CompilesRunAheadSoTheGpusHardlyWaitForACompiledCandidate) {
  for (const auto profiles : config::all_champion_profiles) {
    SCOPED_TRACE(config::to_string(profiles));
    auto s = setup(4, 2, true); // more jobs than GPUs: while one job waits on its proposal, another races
    s.spec.profiled_champions = profiles;
    simulated_run run{s, jobs(s)};
    ASSERT_TRUE(run.engine.finished());
    const auto r = run.engine.result();
    const double gpu_time = r.wall_s * 2;
    std::printf("compile ahead (virtual time, %s profiles): %.2f s of %.2f s GPU time waiting for compiles (%.1f%%), "
                "GPU occupied %.0f%%, %zu races, %zu profiles\n",
                std::string{config::to_string(profiles)}.c_str(), r.gpu_wait_for_compile_s, gpu_time,
                100 * r.gpu_wait_for_compile_s / gpu_time, 100 * r.worker_occupancy, run.answers.races, run.answers.profiles);
    ASSERT_GT(run.answers.races, 10u);
    // Deterministic (virtual time): with the champion's ablations compiled ahead the GPUs never wait
    // here but for the first proposals' compiles when no baseline profile covers them (final,
    // none): each GPU at most one compile; without (campaign_engine::compile_ahead disabled) they
    // wait 2.2% of their time.
    if (profiles == config::champion_profiles::each)
      EXPECT_LT(r.gpu_wait_for_compile_s, 0.01 * gpu_time) << "after the first candidate, compiles keep ahead of the GPUs";
    else
      EXPECT_LE(r.gpu_wait_for_compile_s, 2 * run.pipeline.compile_s + 1e-9) << "each GPU waits for a first compile only";
  }
}

// branch_compiled says how long its build took from the order on, the compiler's queue
// included: with one compiler for many branches, later builds wait behind earlier ones.
TEST_F(CampaignEngine, BranchCompiledSaysHowLongItsOrderTookQueueIncluded) {
  auto s = setup(4, 2, true);
  s.spec.profiled_champions = config::champion_profiles::none;
  double clock = 0.0;
  campaign_engine engine{s, jobs(s), [&clock] { return clock; }};
  answering_loop answers{engine};
  simulated_pipeline pipeline{engine, answers, clock};
  pipeline.compilers = 1;
  engine.start();
  pipeline.run();
  ASSERT_TRUE(engine.finished());
  std::vector<double> ordered;
  for (const auto& e : answers.events)
    if (e.type == feed::event_type::branch_compiled) {
      const auto at = e.detail_json.find("\"ordered_s\":");
      ASSERT_NE(at, std::string::npos) << e.detail_json;
      ordered.push_back(std::stod(e.detail_json.substr(at + 12)));
    }
  ASSERT_GT(ordered.size(), 4u);
  EXPECT_GE(*std::min_element(ordered.begin(), ordered.end()), 0.0);
  EXPECT_GT(*std::max_element(ordered.begin(), ordered.end()), 1.5 * pipeline.compile_s)
    << "a build that waited behind another counts its wait";
}

// A host's driver takes CUPTI's passes in turn. Where only a job's end waits for its profile
// (final), one GPU profiles at a time, and it takes every profile due at once: one batch, whose
// counters the runner reads in one range profiler session. Each profile of a batch is released
// with its share of the batch's lease, and the GPU takes nothing else until the last is back.
// Where the next proposal waits for it (each), a profile goes at once to any idle GPU.
TEST_F(CampaignEngine, FinalProfilesGoInBatchesOneGpuAtATimeAndEachProfilesGoAtOnce) {
  for (const auto profiles : {config::champion_profiles::final, config::champion_profiles::each}) {
    SCOPED_TRACE(config::to_string(profiles));
    auto s = setup_many(8, 3, 2); // jobs that advance together and stop together
    s.spec.profiled_champions = profiles;
    simulated_run run{s, jobs(s)};
    ASSERT_TRUE(run.engine.finished());
    const auto r = run.engine.result();
    ASSERT_EQ(r.gpus.size(), 2u);
    const auto a = r.gpus[0].profiles, b = r.gpus[1].profiles;
    std::printf("%s profiles: %zu, at most %zu GPU(s) profiling at once, largest batch %zu, per GPU %llu and %llu\n",
                std::string{config::to_string(profiles)}.c_str(), run.answers.profiles, run.pipeline.most_profiles_at_once,
                run.pipeline.largest_batch, static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
    if (profiles == config::champion_profiles::final) {
      EXPECT_GE(run.answers.profiles, 8u) << "one a job at least (an early one may be of a best since replaced)";
      EXPECT_EQ(run.pipeline.most_profiles_at_once, 1u);
      EXPECT_GT(run.pipeline.largest_batch, 1u) << "jobs that stop together: their profiles go together";
      // Per GPU, in event order: a batch's leases, then its releases, nothing in between.
      std::map<int, std::size_t> open; // GPU -> profiles of its batch not yet released
      std::map<int, std::vector<double>> shares;
      for (const auto& e : run.answers.events) {
        const bool profile = e.detail_json.find("\"profile\":true") != std::string::npos;
        if (e.type == feed::event_type::gpu_leased) {
          EXPECT_TRUE(profile || open[e.gpu] == 0) << "GPU " << e.gpu << " raced inside a batch of profiles";
          open[e.gpu] += profile;
        } else if (e.type == feed::event_type::gpu_released && profile) {
          ASSERT_GT(open[e.gpu], 0u);
          const auto at = e.detail_json.find("\"lease_s\":");
          ASSERT_NE(at, std::string::npos) << e.detail_json;
          shares[e.gpu].push_back(std::stod(e.detail_json.substr(at + 10)));
          if (--open[e.gpu] == 0) { // the batch is back: its shares are equal and add up to its lease
            const auto n = static_cast<double>(shares[e.gpu].size());
            for (double share : shares[e.gpu])
              EXPECT_NEAR(share * n, run.pipeline.profile_s * (1 + 0.1 * (n - 1)), 1e-9);
            shares[e.gpu].clear();
          }
        }
      }
    } else {
      EXPECT_GT(run.pipeline.most_profiles_at_once, 1u) << "a proposal waits for it: no turn";
      EXPECT_EQ(run.pipeline.largest_batch, 1u);
    }
  }
}

// A GPU with nothing left to race takes the profiles due even while another GPU's batch is out:
// waiting its turn it would idle (at the end of a 4x H100 sweep a batch with SGEMMs held the last
// jobs' profiles back 1.1 s while three GPUs idled). Here a batch takes 1.5 s, ten races' time.
TEST_F(CampaignEngine, AGpuWithNothingToRaceTakesTheDueProfilesWithoutWaitingItsTurn) {
  auto s = setup_many(8, 3, 2);
  s.spec.profiled_champions = config::champion_profiles::final;
  double clock = 0.0;
  campaign_engine engine{s, jobs(s), [&clock] { return clock; }};
  answering_loop answers{engine};
  simulated_pipeline pipeline{engine, answers, clock};
  pipeline.profile_s = 1.5;
  engine.start();
  pipeline.run();
  ASSERT_TRUE(engine.finished());
  std::printf("long profiles (virtual time): %.2f s, at most %zu GPU(s) profiling at once, largest batch %zu\n",
              engine.result().wall_s, pipeline.most_profiles_at_once, pipeline.largest_batch);
  EXPECT_EQ(pipeline.most_profiles_at_once, 2u);
}

// Under final a GPU with nothing to race profiles a job's best before the job stops, one
// profile at a time still: the profiles no longer all wait for the jobs' common end, and every
// job still ends.
TEST_F(CampaignEngine, UnderFinalIdleGpusProfileBestsBeforeTheirJobsStop) {
  auto s = setup_many(6, 3, 4); // four GPUs for six jobs: they wait for compiles now and then
  s.spec.profiled_champions = config::champion_profiles::final;
  simulated_run run{s, jobs(s)};
  ASSERT_TRUE(run.engine.finished());
  // Per job, whether a profile of it was leased before its last race: never, if its profile
  // waited for its end.
  std::map<std::string, bool> profiled_while_racing;
  std::map<std::string, std::size_t> ended;
  for (const auto& e : run.answers.events) {
    if (e.type == feed::event_type::job_finished)
      ++ended[e.job];
    if (e.type != feed::event_type::gpu_leased)
      continue;
    if (e.detail_json.find("\"profile\":true") != std::string::npos)
      profiled_while_racing.try_emplace(e.job, false);
    else if (profiled_while_racing.contains(e.job))
      profiled_while_racing[e.job] = true; // a race after a profile of it
  }
  const auto early = std::count_if(profiled_while_racing.begin(), profiled_while_racing.end(),
                                   [](const auto& entry) { return entry.second; });
  std::printf("final with early profiles (virtual time): %.2f s, %zu profiles, %zu jobs profiled before their last race, "
              "at most %zu at once\n",
              run.engine.result().wall_s, run.answers.profiles, static_cast<std::size_t>(early),
              run.pipeline.most_profiles_at_once);
  EXPECT_GT(early, 0) << "idle GPUs profile bests that may stay the bests";
  EXPECT_EQ(run.pipeline.most_profiles_at_once, 1u) << "one GPU profiles at a time";
  EXPECT_EQ(ended.size(), 6u);
  EXPECT_GE(run.answers.profiles, 6u) << "at least each job's best";
}

// Issue 26: a candidate its proposer found to repeat a measured branch (duplicate_of) is recorded
// with the branch it repeats and ends not_run, and no compile or race is ever ordered for it.
TEST_F(CampaignEngine, ADuplicateCandidateIsRecordedWithItsEarlierBranchAndNeverCompiledOrRaced) {
  auto s = setup(2, 1);
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  std::optional<propose_request> asked;
  std::vector<compile_order> compiled;
  for (int guard = 0; guard < 10000 && !engine.finished(); ++guard) {
    auto out = engine.take_outbox();
    for (const auto& [id, order] : out.compiles)
      compiled.push_back(order);
    auto proposals = std::move(out.proposals);
    out.proposals.clear();
    loop.answer(std::move(out));
    for (auto& p : proposals) {
      auto answer = loop.proposer.propose(p.request);
      ASSERT_TRUE(answer) << answer.error();
      if (!asked && p.request.job == "transpose" && !answer->candidates.empty()) {
        asked = p.request;
        answer->candidates.front().duplicate_of = branch_place{1, 0}; // the baseline, say
      }
      engine.proposed(p.id, answer);
    }
  }
  ASSERT_TRUE(engine.finished());
  ASSERT_TRUE(asked);
  ASSERT_EQ(asked->iteration, 1);
  const std::int64_t ordinal = asked->first_ordinal;
  EXPECT_EQ(ordinal, 1);
  bool recorded = false;
  bool ended = false;
  for (const auto& w : loop.writes) {
    if (const auto* b = std::get_if<storage::branch_record>(&w); b && b->key.job_id == 1 && b->key.iteration == 1 &&
                                                                b->key.ordinal == ordinal)
      recorded = b->duplicate_of_iteration == 1 && b->duplicate_of_ordinal == 0;
    if (const auto* c = std::get_if<storage::branch_outcome_change>(&w); c && c->key.job_id == 1 &&
                                                                        c->key.iteration == 1 && c->key.ordinal == ordinal)
      ended = c->outcome == branch_outcome::not_run && c->detail.starts_with("duplicate of iteration 1 branch 0");
  }
  EXPECT_TRUE(recorded) << "its row names the branch it repeats";
  EXPECT_TRUE(ended) << "it ends not_run with the reason";
  const auto folder = "iter-1/branch-" + std::to_string(ordinal);
  EXPECT_TRUE(std::any_of(compiled.begin(), compiled.end(), [&](const compile_order& order) {
    return order.ref.job == "transpose" && order.ref.iteration == 1 && order.ref.branch == ordinal + 1;
  })) << "its sibling, no duplicate, is compiled";
  for (const auto& order : compiled)
    EXPECT_FALSE(order.ref.job == "transpose" && order.ref.iteration == 1 && order.ref.branch == ordinal)
      << "compiled: " << order.output_dir;
  for (const auto& race : loop.raced_cubins)
    for (const auto& cubin : race)
      EXPECT_EQ(cubin.find("transpose/" + folder + "/"), std::string::npos) << "raced: " << cubin;
}

TEST_F(CampaignEngine, EachModelCallOfAnAcceptedProposalIsOneStoreRowAndOneLlmCallEvent) {
  auto s = setup(1, 1);
  const auto job_setups = jobs(s);
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  model_call judge{"judge", "claude-haiku-4-5", std::nullopt, 1200, 80, 9000, 0, 0.0021, 1.5, 1, "jobs/x/iter-1/llm/judge.json"};
  model_call propose{"propose", "claude-sonnet-4-5", llm::chat_error_kind::rate_limited, 3400, 2100, 0, 5000, 0.05, 12.25, 3,
                     "jobs/x/iter-1/llm/propose.json"};
  // The first proposal is answered with the tuner's candidates and two model calls; the rest as usual.
  std::optional<propose_request> asked;
  for (int guard = 0; guard < 1000 && !asked; ++guard) {
    auto out = engine.take_outbox();
    auto proposals = std::move(out.proposals);
    out.proposals.clear();
    loop.answer(std::move(out));
    for (auto& p : proposals) {
      auto answer = loop.proposer.propose(p.request);
      ASSERT_TRUE(answer) << answer.error();
      if (!asked) {
        asked = p.request;
        answer->calls = {judge, propose};
      }
      engine.proposed(p.id, answer);
    }
  }
  ASSERT_TRUE(asked);
  loop.run();
  ASSERT_TRUE(engine.finished());

  std::vector<storage::llm_call_record> rows;
  for (const auto& w : loop.writes)
    if (const auto* r = std::get_if<storage::llm_call_record>(&w))
      rows.push_back(*r);
  ASSERT_EQ(rows.size(), 2u) << "the other proposals made no call";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const auto& call = i == 0 ? judge : propose;
    EXPECT_EQ(job_setups.at(static_cast<std::size_t>(row.job_id - 1)).name, asked->job);
    EXPECT_EQ(row.iteration, asked->iteration);
    EXPECT_EQ(row.seq, static_cast<std::int64_t>(i + 1));
    EXPECT_EQ(row.purpose, call.purpose);
    EXPECT_EQ(row.model, call.model);
    EXPECT_EQ(row.outcome, i == 0 ? "ok" : "rate_limited") << "the store keeps the same words";
    EXPECT_EQ(row.input_tokens, call.input_tokens);
    EXPECT_EQ(row.output_tokens, call.output_tokens);
    EXPECT_EQ(row.cache_read_tokens, call.cache_read_tokens);
    EXPECT_EQ(row.cache_write_tokens, call.cache_write_tokens);
    EXPECT_EQ(row.cost_usd, call.cost_usd);
    EXPECT_EQ(row.seconds, call.seconds);
    EXPECT_EQ(row.attempts, static_cast<std::int64_t>(call.attempts));
    EXPECT_EQ(row.transcript, call.transcript);
  }

  std::vector<feed::event> calls;
  std::optional<std::size_t> first_call, first_branch_of_iteration;
  for (std::size_t i = 0; i < loop.events.size(); ++i) {
    const auto& e = loop.events[i];
    if (e.type == feed::event_type::llm_call) {
      calls.push_back(e);
      first_call = first_call.value_or(i);
    }
    const bool proposed_branch = e.type == feed::event_type::branch_proposed &&
                                 e.detail_json.find(R"("kind":"branch")") != std::string::npos;
    if (proposed_branch && e.job == asked->job && e.iter == asked->iteration && !first_branch_of_iteration)
      first_branch_of_iteration = i;
  }
  ASSERT_EQ(calls.size(), 2u);
  ASSERT_TRUE(first_branch_of_iteration);
  EXPECT_LT(*first_call, *first_branch_of_iteration) << "the calls are told before the branches they proposed";
  EXPECT_EQ(calls[1].job, asked->job);
  EXPECT_EQ(calls[1].iter, asked->iteration);
  EXPECT_EQ(calls[1].branch, feed::no_branch);
  EXPECT_EQ(calls[1].gpu, feed::no_gpu);
  for (const auto* field : {R"("call":2)", R"("purpose":"propose")", R"("outcome":"rate_limited")",
                            R"("input_tokens":3400)", R"("cache_write_tokens":5000)", R"("attempts":3)",
                            R"("seconds":12.25)", R"("transcript":"jobs/x/iter-1/llm/propose.json")"})
    EXPECT_NE(calls[1].detail_json.find(field), std::string::npos) << field << " in " << calls[1].detail_json;
}

// --- a long campaign: the cost of an iteration and the size of a proposal stay flat (issue 22) ----

// vector_add with a second tunable of 4096 values (16 Ki points): room for thousands of iterations
// of four new points each; patience as long as the budget, so nothing stops it early.
config::campaign_spec long_campaign(const fs::path& dir, std::uint32_t iterations) {
  std::ifstream example{WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml"};
  std::stringstream text;
  text << example.rdbuf();
  auto problem = text.str();
  problem.replace(problem.find("\"kernel.cu\""), 11, "\"" WARPFORGE_SOURCE_DIR "/examples/vector_add/kernel.cu\"");
  problem.replace(problem.find("[[args]]"), 8, "[[tunables]]\nname = \"PAD\"\nrange = { from = 0, to = 4095 }\n\n[[args]]");
  std::ofstream{dir / "problem.toml"} << problem;
  std::ofstream{dir / "campaign.toml"} << "name = \"long\"\nrun_root = \"" << dir.string() << "\"\n"
                                       << "[[jobs]]\nproblem = \"problem.toml\"\n"
                                       << "[budget]\niterations = " << iterations << "\nbranches = 4\npatience = "
                                       << iterations << "\n[proposer]\nkind = \"tune\"\nstrategy = \"random\"\n";
  auto spec = config::load_campaign(dir / "campaign.toml");
  EXPECT_TRUE(spec) << toml_reader::to_string(spec.error());
  return *spec;
}

TEST_F(CampaignEngine, ALongCampaignsLateIterationsCostNoMoreThanItsEarlyOnesAndItsProposalsCarryOnlyNewMemory) {
  constexpr std::uint32_t iterations = 1500;
  campaign_setup s;
  s.spec = long_campaign(dir, iterations);
  s.run_dir = dir / "run";
  s.gpus = {fake_gpu(0), fake_gpu(1)};
  s.job_ids = {1};
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> finished_at; // seconds since the start, per finished iteration
  for (int guard = 0; guard < 100 * static_cast<int>(iterations) && !engine.finished(); ++guard) {
    auto out = engine.take_outbox();
    for (const auto& e : out.events)
      if (e.type == feed::event_type::iteration_finished)
        finished_at.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    loop.answer(std::move(out));
  }
  ASSERT_TRUE(engine.finished());
  for (const auto& e : engine.take_outbox().events) // the last iteration's end
    if (e.type == feed::event_type::iteration_finished)
      finished_at.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  ASSERT_EQ(finished_at.size(), iterations);
  EXPECT_EQ(engine.result().kind, campaign_result_kind::finished) << engine.result().reason;

  // 100 iterations early (after the start-up) against the last 100.
  const double early = finished_at[200] - finished_at[100];
  const double late = finished_at[iterations - 1] - finished_at[iterations - 101];
  EXPECT_LT(late, 3 * early + 0.2) << "100 iterations took " << early << " s early and " << late << " s late";

  // The first request carries the memory from the start; every later one only what came since
  // the one before (the first is asked while the baseline races: the baseline comes with the second).
  ASSERT_EQ(loop.memory_sent.size(), iterations);
  EXPECT_EQ(loop.memory_sent.front().first, 0);
  std::size_t largest_late = 0;
  for (std::size_t i = 1; i < loop.memory_sent.size(); ++i) {
    const auto& [from, entries] = loop.memory_sent[i - 1];
    EXPECT_EQ(loop.memory_sent[i].first, from + static_cast<std::int64_t>(entries))
      << "proposal " << i + 1 << " was sent entries an earlier one had";
    largest_late = std::max(largest_late, loop.memory_sent[i].second);
  }
  EXPECT_LE(largest_late, 8u) << "a proposal's memory is the last iteration's entries (K = 4, ablations none)";
}

TEST_F(CampaignEngine, AProposerThatLostItsMemoryIsSentAllOfItAndProposesAsAnUndisturbedOneWould) {
  auto s = setup(6, 1);
  // Undisturbed.
  campaign_engine steady_engine{s, jobs(s), [] { return 0.0; }};
  steady_engine.start();
  answering_loop steady{steady_engine};
  steady.run();
  // The same campaign whose proposer is replaced by a fresh one before every proposal (a restart).
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  for (int guard = 0; guard < 10000 && !engine.finished(); ++guard) {
    auto out = engine.take_outbox();
    if (!out.proposals.empty())
      loop.proposer = tune_proposer{config::search_strategy::random, 1};
    loop.answer(std::move(out));
  }
  ASSERT_TRUE(engine.finished());
  EXPECT_EQ(engine.result().kind, campaign_result_kind::finished) << engine.result().reason;
  EXPECT_FALSE(steady.champions().empty());
  EXPECT_EQ(loop.champions(), steady.champions());
  bool resent = false;
  for (std::size_t i = 1; i < loop.memory_sent.size(); ++i)
    resent = resent || (loop.memory_sent[i - 1].first > 0 && loop.memory_sent[i].first == 0);
  EXPECT_TRUE(resent) << "a delta to a fresh proposer is answered by sending the whole memory";
}

// --- a GPU out of service (issue 22) ---------------------------------------------------------------

TEST_F(CampaignEngine, RacesAGpuOutOfServiceGaveBackRunOnTheHealthyGpuAndTheCampaignFinishes) {
  auto s = setup(3, 2);
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  loop.out_of_service = {0};
  loop.run();
  ASSERT_TRUE(engine.finished());
  const auto result = engine.result();
  EXPECT_EQ(result.kind, campaign_result_kind::finished) << result.reason;
  EXPECT_GT(loop.races, 0u);
  std::size_t leases_of_gpu0 = 0;
  for (const auto& e : loop.events)
    leases_of_gpu0 += e.type == feed::event_type::gpu_leased && e.gpu == 0;
  EXPECT_EQ(leases_of_gpu0, 1u) << "only the race or profile that found the GPU out of service went to it";
  std::size_t not_run = 0;
  for (const auto& w : loop.writes)
    if (const auto* o = std::get_if<storage::branch_outcome_change>(&w))
      not_run += o->outcome == branch_outcome::not_run;
  EXPECT_EQ(not_run, 0u) << "no branch ends not_run while a healthy GPU is left";
  bool warned = false;
  for (const auto& e : loop.events)
    warned = warned || (e.type == feed::event_type::warning && e.gpu == 0 &&
                        e.detail_json.find("gpu.0 is out of service") != std::string::npos);
  EXPECT_TRUE(warned) << "the feed says which GPU left the placement and why";
}

TEST_F(CampaignEngine, WithEveryGpuOutOfServiceEveryJobFailsSayingNoHealthyGpuIsLeft) {
  auto s = setup(3, 2);
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  loop.out_of_service = {0, 1};
  loop.run();
  ASSERT_TRUE(engine.finished());
  const auto result = engine.result();
  EXPECT_EQ(result.kind, campaign_result_kind::failed);
  EXPECT_NE(result.reason.find("no healthy GPU is left"), std::string::npos) << result.reason;
  EXPECT_NE(result.reason.find("gpu.0 is out of service"), std::string::npos) << result.reason;
  EXPECT_NE(result.reason.find("gpu.1 is out of service"), std::string::npos) << result.reason;
  std::set<std::int64_t> failed;
  for (const auto& w : loop.writes)
    if (const auto* j = std::get_if<storage::job_state_change>(&w); j && j->state == vocabulary::job_state::failed)
      failed.insert(j->job_id);
  EXPECT_EQ(failed, (std::set<std::int64_t>{1, 2}));
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, int> recorded, ended;
  for (const auto& w : loop.writes) {
    if (const auto* b = std::get_if<storage::branch_record>(&w))
      ++recorded[{b->key.job_id, b->key.iteration, b->key.ordinal}];
    if (const auto* o = std::get_if<storage::branch_outcome_change>(&w))
      ++ended[{o->key.job_id, o->key.iteration, o->key.ordinal}];
  }
  EXPECT_EQ(recorded.size(), ended.size()) << "every branch recorded also ends";
}

// --- a job's own files (issue 22) ---------------------------------------------------------------

TEST_F(CampaignEngine, AJobWhoseFolderCannotBeWrittenFailsAloneWithTheReasonAndTheOtherFinishes) {
  auto s = setup(2, 1);
  const auto job_jobs = jobs(s);
  // The first job's folder is taken by a file: nothing of that job can be written under it.
  const auto blocked = job_folder(s.run_dir, job_jobs.front().name);
  fs::create_directories(blocked.parent_path());
  std::ofstream{blocked} << "not a folder";
  campaign_engine engine{s, job_jobs, [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  loop.run();
  ASSERT_TRUE(engine.finished());
  const auto result = engine.result();
  EXPECT_EQ(result.kind, campaign_result_kind::failed);
  EXPECT_NE(result.reason.find(job_jobs.front().name + ": cannot record its branches"), std::string::npos)
    << result.reason;
  std::map<std::int64_t, vocabulary::job_state> last;
  for (const auto& w : loop.writes)
    if (const auto* j = std::get_if<storage::job_state_change>(&w))
      last[j->job_id] = j->state;
  EXPECT_EQ(last[1], vocabulary::job_state::failed);
  EXPECT_EQ(last[2], vocabulary::job_state::finished);
}


// Placement (issue 24): one queue for every GPU. A job's races go to whichever GPU is idle, not to
// a GPU fixed per job; the work spreads over the GPUs; "measured" counts the candidates the GPUs
// gave a verdict, never the incumbent timed again beside them.
TEST_F(CampaignEngine, AnyIdleGpuTakesAnyJobsNextRaceAndTheMeasurementsSpreadEvenly) {
  auto s = setup(3, 2, true);
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  loop.run();
  ASSERT_TRUE(engine.finished());
  std::map<std::string, std::set<int>> gpus_of_job;
  for (const auto& e : loop.events)
    if (e.type == feed::event_type::gpu_leased)
      gpus_of_job[e.job].insert(e.gpu);
  ASSERT_EQ(gpus_of_job.size(), 3u);
  std::size_t on_both = 0;
  for (const auto& [job, gpus] : gpus_of_job)
    on_both += gpus.size() == 2;
  EXPECT_GT(on_both, 0u) << "no job's races ever moved to the other GPU: a GPU fixed per job";
  const auto result = engine.result();
  std::uint64_t measured = 0;
  for (const auto& g : result.gpus)
    measured += g.measured;
  EXPECT_EQ(measured, result.measured);
  std::uint64_t rows = 0;
  for (const auto& w : loop.writes)
    rows += std::holds_alternative<storage::measurement_record>(w);
  EXPECT_EQ(result.measured, rows) << "every kernel passes here: one measurement row per candidate measured, "
                                      "the incumbent yardstick not counted";
  const double mean = static_cast<double>(measured) / 2.0;
  for (const auto& g : result.gpus)
    EXPECT_NEAR(static_cast<double>(g.measured), mean, 0.25 * mean) << "GPU " << g.ordinal;
}

// GPUs of two models: a job's times are compared on one model only, so every race and profile of
// a job runs on GPUs of the model its first race ran on.
TEST_F(CampaignEngine, AJobsRacesAndProfilesStayOnTheGpuModelItsFirstRaceRanOn) {
  auto s = setup(2, 2, true);
  s.gpus[1].name = "Other GPU";
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  loop.run();
  ASSERT_TRUE(engine.finished());
  EXPECT_EQ(engine.result().kind, campaign_result_kind::finished) << engine.result().reason;
  std::map<std::string, std::set<int>> gpus_of_job;
  for (const auto& e : loop.events)
    if (e.type == feed::event_type::gpu_leased)
      gpus_of_job[e.job].insert(e.gpu);
  ASSERT_EQ(gpus_of_job.size(), 3u);
  std::set<int> used;
  for (const auto& [job, gpus] : gpus_of_job) {
    EXPECT_EQ(gpus.size(), 1u) << job << " was measured on both models";
    used.insert(gpus.begin(), gpus.end());
  }
  EXPECT_EQ(used.size(), 2u) << "both models took jobs";
}

// A profile whose GPU went out of service runs on a healthy GPU, never on the lost one. A due
// profile (each) is given back and sent again; under final the first profile may be an early
// one, which is not sent again as it was (its best may be gone by then): the job offers its
// best anew. Either way the campaign ends well.
TEST_F(CampaignEngine, AProfileAGpuOutOfServiceGaveBackRunsOnAHealthyGpu) {
  for (const auto profiles : {config::champion_profiles::each, config::champion_profiles::final}) {
    SCOPED_TRACE(config::to_string(profiles));
    auto s = setup(3, 2);
    s.spec.profiled_champions = profiles;
    campaign_engine engine{s, jobs(s), [] { return 0.0; }};
    engine.start();
    answering_loop loop{engine};
    loop.lose_the_first_profiles_gpu = true;
    loop.run();
    ASSERT_TRUE(engine.finished());
    EXPECT_EQ(engine.result().kind, campaign_result_kind::finished) << engine.result().reason;
    ASSERT_FALSE(loop.profiled_on.empty());
    const auto lost = loop.profiled_on.front();
    for (std::size_t i = loop.lost_batch; i < loop.profiled_on.size(); ++i) // after the batch it came in
      EXPECT_NE(loop.profiled_on[i].second, lost.second) << "profile " << i << " went to the lost GPU";
    bool given_back = false;
    for (const auto& e : loop.events)
      given_back = given_back || (e.type == feed::event_type::gpu_released && e.gpu == lost.second &&
                                  e.detail_json.find("\"out_of_service\"") != std::string::npos &&
                                  e.detail_json.find("\"profile\":true") != std::string::npos);
    EXPECT_TRUE(given_back) << "the feed says the profile's GPU gave it back";
    if (profiles != config::champion_profiles::each)
      continue;
    std::size_t again_elsewhere = 0;
    for (std::size_t i = 1; i < loop.profiled_on.size(); ++i)
      again_elsewhere += loop.profiled_on[i].first == lost.first && loop.profiled_on[i].second != lost.second;
    EXPECT_EQ(again_elsewhere, 1u) << "the lost profile ran once more, on the other GPU";
  }
}

// The only GPU lost with a profile in flight: no GPU is left to profile it, so the jobs fail
// saying so instead of waiting for a diagnosis that cannot come.
TEST_F(CampaignEngine, AProfileLostWithTheOnlyGpuFailsTheJobsSayingNoHealthyGpuIsLeft) {
  auto s = setup(3, 1);
  s.spec.profiled_champions = config::champion_profiles::each; // the first profile is mid-job
  campaign_engine engine{s, jobs(s), [] { return 0.0; }};
  engine.start();
  answering_loop loop{engine};
  loop.lose_the_first_profiles_gpu = true;
  loop.run();
  ASSERT_TRUE(engine.finished()) << "no job waits for a profile no GPU can run";
  EXPECT_EQ(engine.result().kind, campaign_result_kind::failed);
  EXPECT_NE(engine.result().reason.find("no healthy GPU is left"), std::string::npos) << engine.result().reason;
  EXPECT_EQ(loop.profiled_on.size(), 1u) << "the lost profile is not sent again to the lost GPU";
}

// Diagnose measures and profiles each GPU (pinned work): a GPU lost with its profile in flight
// ends that profile undiagnosed, without moving it to another GPU, and the work still pinned to
// the lost GPU ends not_run instead of leaving its job waiting; the campaign finishes.
TEST_F(CampaignEngine, PinnedWorkOfALostGpuEndsThereAndTheCampaignFinishes) {
  for (const bool lost_at_first_race : {false, true}) {
    auto s = setup(1, 2);
    s.mode = campaign_mode::diagnose;
    campaign_engine engine{s, jobs(s), [] { return 0.0; }};
    engine.start();
    answering_loop loop{engine};
    if (lost_at_first_race)
      loop.out_of_service = {1};
    else
      loop.lose_at_its_first_profile = 1;
    loop.run();
    ASSERT_TRUE(engine.finished()) << "no job waits for work pinned to the lost GPU";
    std::size_t on_gpu0 = 0, on_gpu1 = 0;
    for (const auto& [ref, gpu] : loop.profiled_on)
      ++(gpu == 1 ? on_gpu1 : on_gpu0);
    EXPECT_EQ(on_gpu1, lost_at_first_race ? 0u : 2u)
      << "only the batch that found GPU 1 lost (both jobs' profiles of it, due together) went to it";
    EXPECT_EQ(on_gpu0, 2u) << "one profile of each job on GPU 0; nothing of GPU 1's was moved there";
    std::size_t not_run = 0;
    for (const auto& w : loop.writes)
      if (const auto* o = std::get_if<storage::branch_outcome_change>(&w))
        not_run += o->outcome == branch_outcome::not_run && o->detail.find("gpu.1 is out of service") != std::string::npos;
    if (lost_at_first_race)
      EXPECT_EQ(not_run, 2u) << "each job's measurement of GPU 1 ends not_run with the reason";
  }
}

} // namespace
} // namespace warpforge::pipeline
