// The optimize loop on recorded outcomes: no actors, no GPU. Each test drives a job_driver the
// way the scheduler does and checks what it asks for next.

#include "pipeline/job_driver.hpp"

#include <gtest/gtest.h>

namespace warpforge::pipeline {
namespace {

using vocabulary::branch_kind;
using vocabulary::branch_outcome;

config::budget_spec budget(std::uint32_t iterations, std::uint32_t branches = 2) {
  config::budget_spec b;
  b.iterations = iterations;
  b.branches = branches;
  b.patience = 5;
  b.noise_threshold = 0.02;
  b.wall_time_s = 3600;
  return b;
}

candidate point(std::int64_t tile, std::vector<std::string> methods = {}) {
  candidate c;
  c.point = {{"TILE", tile}};
  c.methods = std::move(methods);
  return c;
}

branch_result passed_in(double s) {
  return {branch_outcome::passed, s, s * 0.999, s * 1.001, "", {}};
}

// Builds everything planned, then runs every race with `time_of(ordinal)` as each time and
// `incumbent_s` as the incumbent's time in the race.
void build_all(job_driver& job) {
  for (const auto& b : job.take_planned())
    if (!b.ended)
      job.built(b.iteration, b.ordinal);
}

template <class TimeOf>
race_plan run_race(job_driver& job, TimeOf time_of, std::optional<double> incumbent_s) {
  auto race = job.next_race(false, 0);
  EXPECT_TRUE(race.has_value());
  if (!race)
    return {};
  race_outcome outcome;
  for (auto ordinal : race->ordinals)
    outcome.branches.push_back(time_of(ordinal));
  if (race->with_incumbent)
    outcome.incumbent_s = incumbent_s;
  job.measured(*race, outcome);
  return *race;
}

TEST(JobDriver, TheBaselineIsMeasuredAloneThenProfiledBeforeTheFirstProposal) {
  job_driver job{"t", "p.toml", budget(2), std::nullopt, point(8)};
  auto planned = job.take_planned();
  ASSERT_EQ(planned.size(), 1u);
  EXPECT_EQ(planned[0].what.kind, branch_kind::baseline);
  EXPECT_EQ(planned[0].ordinal, 0);
  EXPECT_FALSE(job.next_race(true, 0)) << "nothing is built yet";
  job.built(1, 0);
  auto race = job.next_race(false, 0);
  ASSERT_TRUE(race);
  EXPECT_FALSE(race->with_incumbent);
  EXPECT_FALSE(job.proposal_due(0)) << "the baseline is still racing";
  job.measured(*race, {{passed_in(1e-3)}, std::nullopt});
  EXPECT_EQ(job.baseline_s(), 1e-3);
  auto profile = job.profile_due(0);
  ASSERT_TRUE(profile);
  EXPECT_EQ(profile->branch.ordinal, 0);
  EXPECT_FALSE(job.proposal_due(0)) << "the proposal waits for the diagnosis";
  job.diagnosed(*profile, std::nullopt);
  auto ask = job.proposal_due(0);
  ASSERT_TRUE(ask);
  EXPECT_EQ(ask->iteration, 1);
  EXPECT_EQ(ask->branches, 2u);
  EXPECT_EQ(ask->best_s, 1e-3);
  ASSERT_EQ(ask->memory.size(), 1u);
  EXPECT_EQ(ask->memory[0].kind, branch_kind::baseline);
}

// The tuner's first proposal reads no time: it is asked while the baseline races, and its
// branches are built meanwhile, to race as soon as the baseline's phase is over.
job_driver ahead_job(config::champion_profiles profiles, std::uint32_t iterations = 2) {
  return job_driver{"t", "p.toml", budget(iterations), std::nullopt, point(8), profiles,
                    first_proposal::while_baseline_races};
}

TEST(JobDriver, AheadTheFirstProposalIsAskedWhileTheBaselineRacesAndItsBranchesRaceRightAfter) {
  auto job = ahead_job(config::champion_profiles::final);
  job.remember({0, branch_kind::branch, {{"TILE", 64}}, {}, branch_outcome::compile_error, std::nullopt, "", -1});
  build_all(job);
  auto baseline = job.next_race(false, 0);
  ASSERT_TRUE(baseline);
  auto ask = job.proposal_due(0);
  ASSERT_TRUE(ask) << "asked while the baseline races";
  EXPECT_EQ(ask->iteration, 1);
  EXPECT_EQ(ask->first_ordinal, 1);
  EXPECT_EQ(ask->current_best.point, point(8).point) << "the baseline is the kernel to improve on";
  EXPECT_FALSE(ask->best_s) << "no time is known yet";
  ASSERT_EQ(ask->memory.size(), 1u) << "the earlier runs' entries only";
  EXPECT_EQ(ask->memory[0].iteration, 0);
  EXPECT_FALSE(job.proposal_due(0)) << "asked once";
  job.accept({{point(16), point(32)}, "", {}, std::nullopt, 1});
  auto planned = job.take_planned();
  ASSERT_EQ(planned.size(), 2u);
  EXPECT_EQ(planned[0].iteration, 1);
  EXPECT_EQ(planned[0].ordinal, 1);
  for (const auto& b : planned)
    job.built(b.iteration, b.ordinal);
  EXPECT_FALSE(job.next_race(true, 0)) << "built, but the baseline's phase is not over";
  job.measured(*baseline, {{passed_in(1e-3)}, std::nullopt});
  EXPECT_FALSE(job.proposal_due(0)) << "the first proposal is in: nothing more to ask";
  auto race = job.next_race(false, 0);
  ASSERT_TRUE(race) << "its branches race at once";
  EXPECT_TRUE(race->with_incumbent);
  EXPECT_EQ(race->ordinals, (std::vector<std::int64_t>{1, 2}));
  job.measured(*race, {{passed_in(0.9e-3), passed_in(1.1e-3)}, 1e-3});
  EXPECT_EQ(job.best().ordinal, 1);
  // The second proposal is sent what the proposer does not hold: the baseline and the branches.
  auto second = job.proposal_due(1);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->iteration, 2);
  EXPECT_EQ(second->memory_from, 1);
  ASSERT_EQ(second->memory.size(), 3u);
  EXPECT_EQ(second->memory[0].kind, branch_kind::baseline);
  EXPECT_EQ(second->memory[0].median_s, 1e-3);
}

TEST(JobDriver, AheadAnAnswerThatComesAfterTheBaselineIsThatPhasesProposalAndIsNotAskedTwice) {
  auto job = ahead_job(config::champion_profiles::none);
  build_all(job);
  auto baseline = job.next_race(false, 0);
  ASSERT_TRUE(job.proposal_due(0));
  job.measured(*baseline, {{passed_in(1e-3)}, std::nullopt});
  EXPECT_FALSE(job.proposal_due(0)) << "the proposal asked ahead is still out";
  job.accept({{point(16)}, ""});
  build_all(job);
  auto race = job.next_race(false, 0);
  ASSERT_TRUE(race);
  EXPECT_EQ(race->ordinals, (std::vector<std::int64_t>{1}));
}

// Under each the baseline's diagnosis comes before any proposal: a near-peak baseline stops the
// job before its first iteration, even for a proposer that could be asked ahead.
TEST(JobDriver, UnderEachTheFirstProposalWaitsForTheBaselinesDiagnosisAndNearPeakStopsTheJob) {
  auto job = ahead_job(config::champion_profiles::each);
  build_all(job);
  auto baseline = job.next_race(false, 0);
  ASSERT_TRUE(baseline);
  EXPECT_FALSE(job.proposal_due(0)) << "not asked ahead under each";
  job.measured(*baseline, {{passed_in(1e-3)}, std::nullopt});
  EXPECT_FALSE(job.proposal_due(0)) << "the diagnosis first";
  diagnosis_summary near;
  near.diagnosed = true;
  near.near_peak = true;
  job.diagnosed(*job.profile_due(0), near);
  EXPECT_FALSE(job.proposal_due(0));
  EXPECT_TRUE(job.done());
  EXPECT_EQ(job.stop(), tuning::stop_reason::near_peak);
}

TEST(JobDriver, AheadAnEmptyFirstProposalStopsTheJobOnceItsBaselineIsMeasured) {
  auto job = ahead_job(config::champion_profiles::none);
  build_all(job);
  auto baseline = job.next_race(false, 0);
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{}, "nothing"});
  EXPECT_FALSE(job.done()) << "its baseline still races";
  job.measured(*baseline, {{passed_in(1e-3)}, std::nullopt});
  EXPECT_TRUE(job.done());
  EXPECT_EQ(job.stop(), tuning::stop_reason::space_exhausted);
  EXPECT_EQ(job.baseline_s(), 1e-3);
}

TEST(JobDriver, AheadAFailedBaselineFailsTheJobWhateverItsFirstProposal) {
  auto job = ahead_job(config::champion_profiles::final);
  build_all(job);
  auto baseline = job.next_race(false, 0);
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{point(16)}, ""});
  build_all(job);
  job.measured(*baseline, {{branch_result{branch_outcome::incorrect, {}, {}, {}, "element 7", {}}}, std::nullopt});
  EXPECT_TRUE(job.done());
  EXPECT_NE(job.failure().find("incorrect: element 7"), std::string::npos) << job.failure();
  EXPECT_FALSE(job.next_race(true, 0));
}

// The baseline on a GPU is measured and recorded first; then the job fails with the proposer's
// reason. A late answer to a job that failed plans nothing.
TEST(JobDriver, AheadAProposerThatCannotProposeFailsTheJobOnceItsBaselineIsMeasured) {
  auto job = ahead_job(config::champion_profiles::final);
  build_all(job);
  auto baseline = job.next_race(false, 0);
  ASSERT_TRUE(baseline);
  ASSERT_TRUE(job.proposal_due(0));
  job.proposal_failed("no problem file");
  EXPECT_FALSE(job.done()) << "its baseline still races";
  job.measured(*baseline, {{passed_in(1e-3)}, std::nullopt});
  EXPECT_TRUE(job.done());
  EXPECT_EQ(job.baseline_s(), 1e-3);
  EXPECT_NE(job.failure().find("could not propose iteration 1: no problem file"), std::string::npos) << job.failure();
  job.accept({{point(16)}, ""});
  EXPECT_TRUE(job.take_planned().empty()) << "nothing is planned for a job that failed";
  job.proposal_failed("another reason");
  EXPECT_NE(job.failure().find("no problem file"), std::string::npos) << "the first reason stays";
}

TEST(JobDriver, AheadAStopRuleThatStopsTheJobAtOnceLeavesTheFirstProposalToAfterTheBaseline) {
  auto b = budget(2);
  b.wall_time_s = 10;
  job_driver job{"t", "p.toml", b, std::nullopt, point(8), config::champion_profiles::none,
                 first_proposal::while_baseline_races};
  build_all(job);
  auto baseline = job.next_race(false, 0);
  EXPECT_FALSE(job.proposal_due(20)) << "past its wall time: not asked ahead";
  job.measured(*baseline, {{passed_in(1e-3)}, std::nullopt});
  EXPECT_FALSE(job.proposal_due(20));
  EXPECT_TRUE(job.done());
  EXPECT_EQ(job.stop(), tuning::stop_reason::wall_time);
}

TEST(JobDriver, AFailedBaselineFailsTheJobWithTheReason) {
  job_driver job{"t", "p.toml", budget(2), std::nullopt, point(8)};
  build_all(job);
  run_race(job, [](auto) { return branch_result{branch_outcome::incorrect, {}, {}, {}, "element 7", {}}; }, {});
  EXPECT_TRUE(job.done());
  EXPECT_NE(job.failure().find("incorrect: element 7"), std::string::npos) << job.failure();
}

// Through the baseline and its diagnosis to the first proposal.
void to_first_proposal(job_driver& job, double baseline_s) {
  build_all(job);
  run_race(job, [&](auto) { return passed_in(baseline_s); }, {});
  job.diagnosed(*job.profile_due(0), std::nullopt);
}

TEST(JobDriver, ChallengersAreTimedAgainstTheIncumbentOfTheirOwnRace) {
  job_driver job{"t", "p.toml", budget(3), std::nullopt, point(8)};
  to_first_proposal(job, 1e-3);
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{point(16), point(32)}, ""});
  build_all(job);
  // The GPU ran 10% slow during this race: the incumbent took 1.1 ms. Branch 1 at 1.045 ms is
  // 5% faster than the incumbent in the same conditions, so it wins at 0.95 ms in the job's frame.
  auto race = run_race(job, [](std::int64_t ordinal) { return passed_in(ordinal == 1 ? 1.045e-3 : 1.2e-3); }, 1.1e-3);
  EXPECT_TRUE(race.with_incumbent);
  auto finished = job.take_finished();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].champion, 1);
  EXPECT_NEAR(*job.best_s(), 0.95e-3, 1e-12);
  EXPECT_EQ(job.best().ordinal, 1);
}

TEST(JobDriver, AChallengerInsideTheIncumbentsIntervalOfItsRaceIsNotCrowned) {
  job_driver job{"t", "p.toml", budget(3), std::nullopt, point(8)};
  to_first_proposal(job, 1e-3);
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{point(16)}, ""});
  build_all(job);
  // Two kernels told apart by noise only: the incumbent's median 1.010 ms (interval from 0.990),
  // the challenger's 0.975 ms (up to 1.005): their intervals overlap. Scaled by the incumbent's
  // median alone the challenger would read 0.965 ms, high end 0.995 ms < 1 ms, a 3.5% win;
  // against the incumbent's low end its high end is 1.015 ms, above the best.
  auto race = job.next_race(false, 0);
  ASSERT_TRUE(race && race->with_incumbent);
  race_outcome outcome;
  outcome.branches.push_back({branch_outcome::passed, 0.975e-3, 0.960e-3, 1.005e-3, "", {}});
  outcome.incumbent_s = 1.010e-3;
  outcome.incumbent_ci_low_s = 0.990e-3;
  job.measured(*race, outcome);
  auto finished = job.take_finished();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_FALSE(finished[0].champion) << "its interval overlaps the incumbent's in the same race";
  EXPECT_NEAR(*job.best_s(), 1e-3, 1e-12);
}

TEST(JobDriver, TheChampionsAblationsAreRacedWithItAndAttributed) {
  job_driver job{"t", "p.toml", budget(3), std::nullopt, point(8)};
  to_first_proposal(job, 1e-3);
  auto champion = point(32, {"tiling_smem"});
  auto without = point(8, {"tiling_smem"});
  without.kind = branch_kind::ablation;
  champion.ablations = {without};
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{champion, point(16)}, ""});
  build_all(job);
  run_race(job, [](std::int64_t ordinal) { return passed_in(ordinal == 1 ? 0.5e-3 : 0.9e-3); }, 1e-3);
  auto planned = job.take_planned();
  ASSERT_EQ(planned.size(), 1u);
  EXPECT_EQ(planned[0].what.kind, branch_kind::ablation);
  EXPECT_EQ(planned[0].parent, 1);
  EXPECT_EQ(planned[0].ordinal, 3);
  EXPECT_FALSE(job.take_finished().size()) << "the iteration waits for its ablations";
  job.built(1, 3);
  auto race = run_race(job, [](auto) { return passed_in(1e-3); }, 0.5e-3);
  EXPECT_TRUE(race.with_incumbent) << "the champion is the incumbent of its ablations' race";
  auto finished = job.take_finished();
  ASSERT_EQ(finished.size(), 1u);
  ASSERT_EQ(finished[0].methods.size(), 1u);
  EXPECT_EQ(finished[0].methods[0].verdict, tuning::method_class::effective);
  EXPECT_TRUE(job.profile_due(0)) << "a new best is profiled";
}

TEST(JobDriver, AMethodTheSassShowsAbsentIsJudgedWithoutAMeasurement) {
  job_driver job{"t", "p.toml", budget(3), std::nullopt, point(8)};
  to_first_proposal(job, 1e-3);
  auto champion = point(32, {"tiling_smem"});
  auto without = point(8, {"tiling_smem"});
  champion.ablations = {without};
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{champion}, ""});
  build_all(job);
  run_race(job, [](auto) {
    auto r = passed_in(0.5e-3);
    r.sass_absent = {"tiling_smem"};
    return r;
  }, 1e-3);
  auto planned = job.take_planned();
  ASSERT_EQ(planned.size(), 1u);
  ASSERT_TRUE(planned[0].ended);
  EXPECT_EQ(planned[0].ended->outcome, branch_outcome::not_run);
  auto finished = job.take_finished();
  ASSERT_EQ(finished.size(), 1u);
  ASSERT_EQ(finished[0].methods.size(), 1u);
  EXPECT_EQ(finished[0].methods[0].verdict, tuning::method_class::implementation_failed);
}

TEST(JobDriver, TheMemoryListsAPhaseByOrdinalWhateverOrderTheRacesEndIn) {
  job_driver job{"t", "p.toml", budget(3, 3), std::nullopt, point(8)};
  to_first_proposal(job, 1e-3);
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{point(16), point(32), point(64)}, ""});
  auto planned = job.take_planned();
  // Branch 3 is built first and raced eagerly on its own; 1 and 2 come after.
  job.built(1, 3);
  auto first = job.next_race(true, 0);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->ordinals, std::vector<std::int64_t>{3});
  job.built(1, 1);
  job.built(1, 2);
  auto second = job.next_race(false, 0);
  ASSERT_TRUE(second);
  job.measured(*second, {{passed_in(1.2e-3), passed_in(1.3e-3)}, 1e-3});
  job.measured(*first, {{passed_in(1.4e-3)}, 1e-3});
  auto ask = job.proposal_due(0);
  ASSERT_TRUE(ask);
  ASSERT_EQ(ask->memory.size(), 4u);
  EXPECT_EQ(ask->memory[1].point.at("TILE"), 16);
  EXPECT_EQ(ask->memory[2].point.at("TILE"), 32);
  EXPECT_EQ(ask->memory[3].point.at("TILE"), 64);
}

TEST(JobDriver, EachBranchInTheMemoryCarriesItsElectionsVerdictAndTheBaselineNone) {
  job_driver job{"t", "p.toml", budget(3, 3), std::nullopt, point(8)};
  to_first_proposal(job, 1e-3);
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{point(16), point(32), point(64)}, ""});
  build_all(job);
  auto race = job.next_race(false, 0);
  ASSERT_TRUE(race);
  ASSERT_EQ(race->ordinals, (std::vector<std::int64_t>{1, 2, 3}));
  const branch_result wrong{branch_outcome::incorrect, std::nullopt, std::nullopt, std::nullopt, "element 7", {}};
  job.measured(*race, {{passed_in(0.5e-3), passed_in(1.3e-3), wrong}, 1e-3});
  auto profile = job.profile_due(0); // the new champion is profiled before the next proposal
  ASSERT_TRUE(profile);
  job.diagnosed(*profile, std::nullopt);
  auto ask = job.proposal_due(0);
  ASSERT_TRUE(ask);
  ASSERT_EQ(ask->memory.size(), 4u);
  EXPECT_EQ(ask->memory[0].verdict, std::nullopt) << "the baseline is not elected";
  EXPECT_EQ(ask->memory[1].verdict, tuning::branch_verdict::accepted);
  EXPECT_EQ(ask->memory[2].verdict, tuning::branch_verdict::rejected);
  EXPECT_EQ(ask->memory[3].verdict, tuning::branch_verdict::failed);
  EXPECT_EQ(ask->memory[1].detail.substr(0, 9), "ACCEPTED:") << "the line the tuner's memory shows";
}

TEST(JobDriver, AnEmptyProposalStopsTheJobAsSpaceExhausted) {
  job_driver job{"t", "p.toml", budget(3), std::nullopt, point(8)};
  to_first_proposal(job, 1e-3);
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{}, "nothing left"});
  EXPECT_TRUE(job.done());
  EXPECT_EQ(job.stop(), tuning::stop_reason::space_exhausted);
  EXPECT_TRUE(job.failure().empty());
}

TEST(JobDriver, TheIterationBudgetStopsTheJobBeforeAnotherProposal) {
  job_driver job{"t", "p.toml", budget(1), std::nullopt, point(8)};
  to_first_proposal(job, 1e-3);
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{point(16)}, ""});
  build_all(job);
  run_race(job, [](auto) { return passed_in(2e-3); }, 1e-3);
  EXPECT_EQ(job.iterations_done(), 1u);
  EXPECT_FALSE(job.profile_due(0)) << "no champion: the best and its diagnosis are unchanged";
  EXPECT_FALSE(job.proposal_due(0));
  EXPECT_TRUE(job.done());
  EXPECT_EQ(job.stop(), tuning::stop_reason::iteration_budget);
}

TEST(JobDriver, ANearPeakDiagnosisStopsTheJob) {
  job_driver job{"t", "p.toml", budget(5), std::nullopt, point(8)};
  build_all(job);
  run_race(job, [](auto) { return passed_in(1e-3); }, {});
  diagnosis_summary near;
  near.diagnosed = true;
  near.near_peak = true;
  job.diagnosed(*job.profile_due(0), near);
  EXPECT_FALSE(job.proposal_due(0));
  EXPECT_EQ(job.stop(), tuning::stop_reason::near_peak);
}

// [profile] champions = "final" (the tuner's default): nobody reads a diagnosis before the job
// stops, so its best is profiled once, then, and the job is done when the diagnosis is back.
TEST(JobDriver, UnderFinalProfilesOnlyTheBestIsProfiledOnceWhenTheJobStops) {
  job_driver job{"t", "p.toml", budget(2), std::nullopt, point(8), config::champion_profiles::final};
  build_all(job);
  run_race(job, [](auto) { return passed_in(1e-3); }, {});
  EXPECT_FALSE(job.profile_due(0)) << "the baseline is not profiled before the first proposal";
  for (std::int64_t iteration = 1; iteration <= 2; ++iteration) {
    ASSERT_TRUE(job.proposal_due(0)) << "iteration " << iteration;
    job.accept({{point(16 * iteration)}, ""});
    build_all(job);
    run_race(job, [&](auto) { return passed_in(1e-3 / (iteration + 1)); }, 1e-3);
    ASSERT_EQ(job.take_finished().size(), 1u);
    EXPECT_EQ(job.take_finished().size(), 0u);
    if (iteration == 1)
      EXPECT_FALSE(job.profile_due(0)) << "a new champion is not profiled while the job goes on";
  }
  EXPECT_FALSE(job.proposal_due(0)) << "the iteration budget is spent";
  EXPECT_FALSE(job.done()) << "the job waits for its best's profile";
  auto profile = job.profile_due(0);
  ASSERT_TRUE(profile);
  EXPECT_EQ(profile->branch.iteration, 2);
  EXPECT_EQ(profile->branch.ordinal, 0) << "the job's best: iteration 2's champion (its first branch)";
  EXPECT_FALSE(job.profile_due(0)) << "asked once";
  diagnosis_summary near; // near-peak is no reason to stop a job that already stopped
  near.diagnosed = true;
  near.near_peak = true;
  job.diagnosed(*profile, near);
  EXPECT_TRUE(job.done());
  EXPECT_EQ(job.stop(), tuning::stop_reason::iteration_budget);
  ASSERT_TRUE(job.diagnosis());
  EXPECT_TRUE(job.diagnosis()->near_peak);
}

TEST(JobDriver, UnderFinalProfilesAnUndiagnosedOrLostProfileStillEndsTheJobAndAFailedJobIsNotProfiled) {
  job_driver job{"t", "p.toml", budget(3), std::nullopt, point(8), config::champion_profiles::final};
  build_all(job);
  run_race(job, [](auto) { return passed_in(1e-3); }, {});
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{}, "nothing left"});
  auto profile = job.profile_due(0);
  ASSERT_TRUE(profile) << "space exhausted: the baseline, still the best, is profiled";
  EXPECT_EQ(profile->branch.ordinal, 0);
  job.diagnosed(*profile, std::nullopt); // the profiler failed: the job ends all the same
  EXPECT_TRUE(job.done());
  EXPECT_EQ(job.stop(), tuning::stop_reason::space_exhausted);

  job_driver lost{"l", "p.toml", budget(3), std::nullopt, point(8), config::champion_profiles::final};
  build_all(lost);
  run_race(lost, [](auto) { return passed_in(1e-3); }, {});
  ASSERT_TRUE(lost.proposal_due(0));
  lost.accept({{}, "nothing left"});
  ASSERT_TRUE(lost.profile_due(0));
  lost.abandon("no healthy GPU is left"); // its final profile's GPU is gone
  EXPECT_TRUE(lost.done());
  EXPECT_TRUE(lost.failure().empty()) << "its work was done: it ends as it stopped";
  EXPECT_EQ(lost.stop(), tuning::stop_reason::space_exhausted);
  EXPECT_FALSE(lost.diagnosis());

  job_driver failing{"f", "p.toml", budget(3), std::nullopt, point(8), config::champion_profiles::final};
  build_all(failing);
  run_race(failing, [](auto) { return branch_result{branch_outcome::incorrect, {}, {}, {}, "element 7", {}}; }, {});
  EXPECT_TRUE(failing.done());
  EXPECT_FALSE(failing.profile_due(0)) << "a job whose baseline failed has no best to profile";
}

// Under final a GPU with nothing to race may profile a job's best early, once per best. When the
// job stops with that best still its best, it is done at once with that diagnosis; when the best
// changed after it, the new best is profiled at the end as before.
TEST(JobDriver, UnderFinalAnEarlyProfileOfTheBestStandsForTheFinalOneWhileItStaysTheBest) {
  job_driver job{"t", "p.toml", budget(2), std::nullopt, point(8), config::champion_profiles::final};
  EXPECT_FALSE(job.early_profile()) << "no best before the baseline is measured";
  build_all(job);
  run_race(job, [](auto) { return passed_in(1e-3); }, {});
  auto early = job.early_profile();
  ASSERT_TRUE(early) << "the baseline is the best now";
  EXPECT_EQ(early->branch.ordinal, 0);
  EXPECT_FALSE(job.early_profile()) << "one out at a time";
  diagnosis_summary baseline_diagnosis;
  baseline_diagnosis.diagnosed = true;
  job.diagnosed(*early, baseline_diagnosis);
  EXPECT_FALSE(job.early_profile()) << "that best is diagnosed";
  ASSERT_TRUE(job.diagnosis());

  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{point(16)}, ""});
  build_all(job);
  run_race(job, [](auto) { return passed_in(0.5e-3); }, 1e-3); // a new champion
  job.take_finished();
  early = job.early_profile();
  ASSERT_TRUE(early) << "the new best";
  EXPECT_EQ(early->branch.iteration, 1);
  diagnosis_summary champion_diagnosis;
  champion_diagnosis.diagnosed = true;
  champion_diagnosis.near_peak = true; // to tell the two diagnoses apart
  job.diagnosed(*early, champion_diagnosis);

  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{point(32)}, ""});
  build_all(job);
  run_race(job, [](auto) { return passed_in(2e-3); }, 1e-3); // slower: the best stays
  EXPECT_FALSE(job.proposal_due(0)) << "the iteration budget is spent";
  EXPECT_TRUE(job.done()) << "its best was profiled early: no profile at its end";
  EXPECT_FALSE(job.profile_due(0));
  EXPECT_EQ(job.stop(), tuning::stop_reason::iteration_budget);
  ASSERT_TRUE(job.diagnosis());
  EXPECT_TRUE(job.diagnosis()->near_peak) << "the best's diagnosis, not the baseline's";
}

TEST(JobDriver, UnderFinalAJobThatStopsWhileAnEarlyProfileIsOutWaitsForItThenProfilesItsBestIfItChanged) {
  for (const bool best_changed : {false, true}) {
    SCOPED_TRACE(best_changed ? "the best changed after the early profile" : "the best did not change");
    job_driver job{"t", "p.toml", budget(1), std::nullopt, point(8), config::champion_profiles::final};
    build_all(job);
    run_race(job, [](auto) { return passed_in(1e-3); }, {});
    auto early = job.early_profile(); // the baseline's, out while the job's one iteration runs
    ASSERT_TRUE(early);
    ASSERT_TRUE(job.proposal_due(0));
    job.accept({{point(16)}, ""});
    build_all(job);
    run_race(job, [&](auto) { return passed_in(best_changed ? 0.5e-3 : 2e-3); }, 1e-3);
    EXPECT_FALSE(job.proposal_due(0)) << "the iteration budget is spent";
    EXPECT_FALSE(job.done()) << "its best's profile is not back";
    EXPECT_FALSE(job.profile_due(0)) << "the early profile is out: nothing more is asked yet";
    EXPECT_FALSE(job.early_profile());
    diagnosis_summary d;
    d.diagnosed = true;
    job.diagnosed(*early, d);
    if (!best_changed) {
      EXPECT_TRUE(job.done());
      EXPECT_TRUE(job.diagnosis());
      continue;
    }
    EXPECT_FALSE(job.done()) << "that profile was of the old best";
    auto final_profile = job.profile_due(0);
    ASSERT_TRUE(final_profile);
    EXPECT_EQ(final_profile->branch.iteration, 1) << "the new best";
    job.diagnosed(*final_profile, d);
    EXPECT_TRUE(job.done());
    EXPECT_EQ(job.stop(), tuning::stop_reason::iteration_budget);
  }
}

// An early profile of a best that lost its place before the answer is not the job's diagnosis
// (nor the next proposal's), and the new best is offered; one that was lost (its GPU went out
// of service) is offered again, and a job that stopped waiting for it asks for its best.
TEST(JobDriver, UnderFinalAStaleEarlyProfileIsNotKeptAndALostOneIsOfferedAgain) {
  job_driver job{"t", "p.toml", budget(2), std::nullopt, point(8), config::champion_profiles::final};
  build_all(job);
  run_race(job, [](auto) { return passed_in(1e-3); }, {});
  const auto of_baseline = job.early_profile();
  ASSERT_TRUE(of_baseline);
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{point(16)}, ""});
  build_all(job);
  run_race(job, [](auto) { return passed_in(0.5e-3); }, 1e-3); // a new champion meanwhile
  job.take_finished();
  diagnosis_summary d;
  d.diagnosed = true;
  job.diagnosed(*of_baseline, d);
  EXPECT_FALSE(job.diagnosis()) << "a former best's diagnosis is not the job's";
  const auto proposal = job.proposal_due(0);
  ASSERT_TRUE(proposal);
  EXPECT_FALSE(proposal->diagnosis) << "nor the proposal's";
  auto of_champion = job.early_profile();
  ASSERT_TRUE(of_champion) << "the new best is offered";
  EXPECT_EQ(of_champion->branch.iteration, 1);

  job.profile_lost(*of_champion); // its GPU went out of service
  of_champion = job.early_profile();
  ASSERT_TRUE(of_champion) << "offered again";
  job.accept({{point(32)}, ""});
  build_all(job);
  run_race(job, [](auto) { return passed_in(2e-3); }, 1e-3); // the best stays; the budget is spent
  EXPECT_FALSE(job.proposal_due(0));
  EXPECT_FALSE(job.profile_due(0)) << "its early profile is out";
  job.profile_lost(*of_champion);
  const auto final_profile = job.profile_due(0);
  ASSERT_TRUE(final_profile) << "lost while the job waited for it: the best is due now";
  EXPECT_EQ(final_profile->branch.iteration, 1);
  EXPECT_FALSE(final_profile->early);
  job.diagnosed(*final_profile, d);
  EXPECT_TRUE(job.done());
  EXPECT_TRUE(job.diagnosis());
}

// Where every best is profiled anyway (each) or none is (none), nothing is offered early.
TEST(JobDriver, OnlyFinalOffersEarlyProfiles) {
  for (const auto profiles : {config::champion_profiles::each, config::champion_profiles::none}) {
    job_driver job{"t", "p.toml", budget(2), std::nullopt, point(8), profiles};
    build_all(job);
    run_race(job, [](auto) { return passed_in(1e-3); }, {});
    EXPECT_FALSE(job.early_profile()) << config::to_string(profiles);
  }
}

// [profile] champions = "none": times only; the job never asks for a profile and stops at once.
TEST(JobDriver, UnderNoProfilesTheJobNeverAsksForOneAndStopsAtOnce) {
  job_driver job{"t", "p.toml", budget(1), std::nullopt, point(8), config::champion_profiles::none};
  build_all(job);
  run_race(job, [](auto) { return passed_in(1e-3); }, {});
  EXPECT_FALSE(job.profile_due(0));
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{point(16)}, ""});
  build_all(job);
  run_race(job, [](auto) { return passed_in(0.5e-3); }, 1e-3);
  EXPECT_FALSE(job.profile_due(0)) << "a new champion is not profiled";
  EXPECT_FALSE(job.proposal_due(0));
  EXPECT_TRUE(job.done());
  EXPECT_FALSE(job.profile_due(0)) << "nor the final best";
  EXPECT_EQ(job.stop(), tuning::stop_reason::iteration_budget);
  EXPECT_FALSE(job.diagnosis());
}

TEST(JobDriver, ABranchThatFailsToBuildEndsWithoutARace) {
  job_driver job{"t", "p.toml", budget(3), std::nullopt, point(8)};
  to_first_proposal(job, 1e-3);
  ASSERT_TRUE(job.proposal_due(0));
  job.accept({{point(16), point(32)}, ""});
  (void)job.take_planned();
  job.failed(1, 1, {branch_outcome::compile_error, {}, {}, {}, "kernel.cu(3): error", {}});
  job.built(1, 2);
  auto race = job.next_race(false, 0);
  ASSERT_TRUE(race);
  EXPECT_EQ(race->ordinals, std::vector<std::int64_t>{2});
  job.measured(*race, {{passed_in(0.9e-3)}, 1e-3});
  auto finished = job.take_finished();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].champion, 2);
  ASSERT_EQ(finished[0].memory.size(), 2u);
  EXPECT_NE(finished[0].memory[0].find("FAILED"), std::string::npos) << finished[0].memory[0];
}

// Issue 26: a candidate the proposer found to repeat a measured branch is recorded, never raced.
TEST(JobDriver, ADuplicateIsPlannedEndedNotRunNamingTheEarlierBranchAndNeverRaced) {
  job_driver job{"t", "p.toml", budget(3), std::nullopt, point(8)};
  to_first_proposal(job, 1e-3);
  auto ask = job.proposal_due(0);
  ASSERT_TRUE(ask);
  EXPECT_EQ(ask->first_ordinal, 1) << "the first proposal's branches follow the baseline";
  auto repeat = point(16);
  repeat.duplicate_of = branch_place{1, 0};
  job.accept({{point(32), repeat}, ""});
  const auto planned = job.take_planned();
  ASSERT_EQ(planned.size(), 2u);
  EXPECT_FALSE(planned[0].ended);
  ASSERT_TRUE(planned[1].ended);
  EXPECT_EQ(planned[1].ordinal, 2);
  EXPECT_EQ(planned[1].ended->outcome, branch_outcome::not_run);
  EXPECT_NE(planned[1].ended->detail.find("duplicate of iteration 1 branch 0"), std::string::npos)
    << planned[1].ended->detail;
  job.built(1, 1);
  auto race = job.next_race(true, 0);
  ASSERT_TRUE(race);
  EXPECT_EQ(race->ordinals, std::vector<std::int64_t>{1}) << "the duplicate is not raced";
  job.measured(*race, {{passed_in(0.9e-3)}, 1e-3});
  ASSERT_EQ(job.take_finished().size(), 1u);
  // The memory names each branch's ordinal, so a proposer can say which branch was repeated.
  job.diagnosed(*job.profile_due(0), std::nullopt);
  auto next = job.proposal_due(0);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->first_ordinal, 0);
  ASSERT_EQ(next->memory.size(), 3u);
  EXPECT_EQ(next->memory[1].ordinal, 1);
  EXPECT_EQ(next->memory[2].ordinal, 2);
  EXPECT_EQ(next->memory[2].outcome, branch_outcome::not_run);
}

TEST(JobDriver, AProposalOfDuplicatesOnlyEndsItsIterationWithoutARace) {
  job_driver job{"t", "p.toml", budget(3), std::nullopt, point(8)};
  to_first_proposal(job, 1e-3);
  ASSERT_TRUE(job.proposal_due(0));
  auto repeat = point(8);
  repeat.duplicate_of = branch_place{1, 0};
  job.accept({{repeat}, ""});
  EXPECT_EQ(job.take_planned().size(), 1u);
  EXPECT_FALSE(job.next_race(true, 0));
  const auto finished = job.take_finished();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_FALSE(finished[0].champion);
  EXPECT_TRUE(job.proposal_due(0)) << "the next iteration is asked for (patience 5)";
}

} // namespace
} // namespace warpforge::pipeline
