// The physical-limit gate inside the campaign engine (engine_gate.cpp), on an H100 by name (the
// specs table's peaks) with the transpose example (8192 x 8192 f32: at least 145 us on it): a
// kernel answered faster than that is raced again alone, fresh and cold, and still too fast ends
// `suspicious` with both numbers, never champion; a plausible time goes through untouched.

#include "pipeline/campaign_engine.hpp"

#include "pipeline/tune_proposer.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

namespace warpforge::pipeline {
namespace {

namespace fs = std::filesystem;
using vocabulary::branch_outcome;

gpu::device_info h100(int ordinal = 0) {
  gpu::device_info d;
  d.ordinal = ordinal;
  d.name = "NVIDIA H100 80GB HBM3";
  d.sm_major = 9;
  d.sm_minor = 0;
  return d;
}

class EngineGate : public ::testing::Test {
protected:
  fs::path dir;
  std::vector<store_write> writes;
  std::vector<feed::event> events;
  std::vector<gpu::race_request> races; // every race request, in order

  void SetUp() override {
    dir = fs::temp_directory_path() / ("wf-gate-" + std::string{::testing::UnitTest::GetInstance()->current_test_info()->name()});
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  campaign_engine make(campaign_mode mode, int gpus = 1) {
    const auto file = dir / "campaign.toml";
    std::ofstream{file} << "name = \"gate\"\nrun_root = \"" << dir.string() << "\"\n"
                        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml\"\n"
                        << "[budget]\niterations = 2\nbranches = 2\npatience = 10\n"
                        << "[proposer]\nkind = \"tune\"\nstrategy = \"random\"\n";
    auto spec = config::load_campaign(file);
    EXPECT_TRUE(spec);
    campaign_setup s;
    s.spec = *spec;
    s.run_dir = dir / "run";
    s.mode = mode;
    for (int g = 0; g < gpus; ++g)
      s.gpus.push_back(h100(g));
    s.job_ids = {1};
    std::vector<job_setup> jobs;
    auto job = open_job(spec->jobs[0].name, spec->jobs[0].problem_path, spec->jobs[0].problem);
    EXPECT_TRUE(job) << job.error();
    jobs.push_back(std::move(*job));
    return campaign_engine{s, std::move(jobs), [] { return 0.0; }};
  }

  // Answers everything; a race's kernel k gets time(request, k).
  // A race `out_of_service` picks is answered as if its GPU's worker went out of service.
  std::function<bool(const race_dispatch&)> out_of_service = [](const race_dispatch&) { return false; };

  void run(campaign_engine& engine, const std::function<double(const gpu::race_request&, std::size_t)>& time) {
    tune_proposer proposer{config::search_strategy::random, 1};
    for (int guard = 0; guard < 2000 && !engine.finished(); ++guard) {
      auto out = engine.take_outbox();
      writes.insert(writes.end(), out.writes.begin(), out.writes.end());
      events.insert(events.end(), out.events.begin(), out.events.end());
      for (auto& [id, order] : out.compiles) {
        built_kernel k;
        k.ref = order.ref;
        k.outcome = branch_outcome::passed;
        k.arch = order.request.arch;
        k.cubin_path = order.output_dir + "/" + order.file_stem + ".cubin";
        engine.built(id, k);
      }
      for (auto& [id, order] : out.sass_checks) {
        sass_verdict v;
        v.ref = order.ref;
        engine.checked(id, v);
      }
      for (auto& p : out.proposals)
        engine.proposed(p.id, proposer.propose(p.request));
      for (auto& r : out.races) {
        if (out_of_service(r)) {
          engine.gpu_out_of_service(r.id, r.gpu, "gpu." + std::to_string(r.gpu) + " is out of service: test");
          continue;
        }
        races.push_back(r.request);
        gpu::race_result result;
        for (std::size_t k = 0; k < r.request.kernels.size(); ++k) {
          gpu::kernel_result kr;
          kr.outcome = branch_outcome::passed;
          kr.stats.count = 20;
          kr.stats.median_s = time(r.request, k);
          kr.stats.median_ci = {kr.stats.median_s * 0.99, kr.stats.median_s * 1.01, 0.95};
          result.kernels.push_back(kr);
        }
        engine.raced(r.id, h100(r.gpu), result, 0.01);
      }
      for (auto& p : out.profiles) {
        diagnosis_summary none;
        none.note = "no counters in this test";
        engine.profiled(p.id, none);
      }
      if (out.empty())
        engine.tick();
    }
    auto out = engine.take_outbox();
    writes.insert(writes.end(), out.writes.begin(), out.writes.end());
  }

  std::vector<storage::branch_outcome_change> outcomes() const {
    std::vector<storage::branch_outcome_change> out;
    for (const auto& w : writes)
      if (const auto* o = std::get_if<storage::branch_outcome_change>(&w))
        out.push_back(*o);
    return out;
  }
};

TEST_F(EngineGate, a_kernel_faster_than_physics_is_remeasured_fresh_and_cold_then_recorded_suspicious) {
  auto engine = make(campaign_mode::bench);
  engine.start();
  run(engine, [](const gpu::race_request&, std::size_t) { return 2e-6; }); // 2 us for 537 MB
  ASSERT_TRUE(engine.finished());
  ASSERT_EQ(races.size(), 2u);
  EXPECT_FALSE(races[0].fresh);
  EXPECT_TRUE(races[1].fresh); // the re-measure: fresh module and buffers, L2 flushed
  EXPECT_EQ(races[1].mode, vocabulary::timing_mode::cold);
  EXPECT_EQ(races[1].kernels.size(), 1u);
  const auto ended = outcomes();
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].outcome, branch_outcome::suspicious);
  EXPECT_NE(ended[0].detail.find("measured 2 us"), std::string::npos) << ended[0].detail;
  EXPECT_NE(ended[0].detail.find("145 us"), std::string::npos) << ended[0].detail; // the limit
  for (const auto& w : writes)
    EXPECT_FALSE(std::holds_alternative<storage::measurement_record>(w)) << "a suspicious time was stored as a measurement";
}

TEST_F(EngineGate, a_plausible_time_is_one_race_and_passes) {
  auto engine = make(campaign_mode::bench);
  engine.start();
  run(engine, [](const gpu::race_request&, std::size_t) { return 200e-6; });
  ASSERT_EQ(races.size(), 1u);
  const auto ended = outcomes();
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].outcome, branch_outcome::passed) << ended[0].detail;
}

TEST_F(EngineGate, a_time_that_was_only_warm_luck_passes_when_the_fresh_remeasure_is_plausible) {
  auto engine = make(campaign_mode::bench);
  engine.start();
  run(engine, [](const gpu::race_request& r, std::size_t) { return r.fresh ? 200e-6 : 2e-6; });
  ASSERT_EQ(races.size(), 2u);
  const auto ended = outcomes();
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].outcome, branch_outcome::passed) << ended[0].detail;
}

TEST_F(EngineGate, an_impossible_challenger_is_never_champion) {
  auto engine = make(campaign_mode::optimize);
  engine.start();
  std::size_t answered = 0;
  run(engine, [&answered](const gpu::race_request& r, std::size_t k) {
    const bool baseline_race = answered++ == 0;
    if (baseline_race || (!r.fresh && k == 0)) // the baseline, and the incumbent in later races
      return 200e-6;
    return 2e-6; // every challenger, fresh or not
  });
  ASSERT_TRUE(engine.finished());
  std::size_t suspicious = 0;
  for (const auto& o : outcomes())
    if (o.key.ordinal != 0 || o.key.iteration != 1) {
      EXPECT_EQ(o.outcome, branch_outcome::suspicious) << o.key.iteration << "/" << o.key.ordinal << ": " << o.detail;
      suspicious += o.outcome == branch_outcome::suspicious;
    }
  EXPECT_GT(suspicious, 0u);
  for (const auto& w : writes)
    if (const auto* u = std::get_if<storage::iteration_update>(&w))
      EXPECT_LT(u->champion_ordinal, 0) << "iteration " << u->number << " crowned " << u->champion_ordinal;
  for (const auto& e : events)
    EXPECT_NE(e.type, feed::event_type::champion_elected);
}

TEST_F(EngineGate, a_fresh_remeasure_whose_gpu_goes_out_of_service_is_raced_whole_again_on_another) {
  auto engine = make(campaign_mode::optimize, 2);
  engine.start();
  bool failed_once = false;
  out_of_service = [&failed_once](const race_dispatch& r) {
    if (failed_once || !r.request.fresh)
      return false;
    return failed_once = true; // the first fresh re-measure's GPU fails
  };
  std::size_t answered = 0;
  run(engine, [&answered](const gpu::race_request& r, std::size_t k) {
    return answered++ == 0 || (!r.fresh && k == 0) ? 200e-6 : 2e-6;
  });
  ASSERT_TRUE(failed_once);
  ASSERT_TRUE(engine.finished()) << "a branch of the held race was left waiting";
  std::map<std::pair<std::int64_t, std::int64_t>, int> ended;
  for (const auto& o : outcomes()) {
    ++ended[{o.key.iteration, o.key.ordinal}];
    if (o.key.ordinal != 0 || o.key.iteration != 1) {
      EXPECT_EQ(o.outcome, branch_outcome::suspicious) << o.key.iteration << "/" << o.key.ordinal << ": " << o.detail;
    }
  }
  for (const auto& [key, n] : ended)
    EXPECT_EQ(n, 1) << key.first << "/" << key.second;
}

} // namespace
} // namespace warpforge::pipeline
