#include "config/campaign_spec.hpp"

#include "fixture.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace warpforge::config {
namespace {

using testing::expect_error;
using testing::find_error;
using testing::fixture;

toml_reader::placed_errors errors_of(const std::string& name) {
  auto spec = load_campaign(fixture(name));
  EXPECT_FALSE(spec.has_value()) << name << " loaded";
  return spec ? toml_reader::placed_errors{} : spec.error();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CampaignSpecEnums, EveryValueOfEveryEnumRoundTripsThroughItsName) {
  for (const auto v : all_proposer_kinds)
    EXPECT_EQ(proposer_kind_from_string(to_string(v)), v);
  for (const auto v : all_search_strategies)
    EXPECT_EQ(search_strategy_from_string(to_string(v)), v);
  for (const auto v : all_llm_providers)
    EXPECT_EQ(llm_provider_from_string(to_string(v)), v);
  for (const auto v : all_log_levels)
    EXPECT_EQ(log_level_from_string(to_string(v)), v);
  for (const auto v : all_gpu_selection_kinds)
    EXPECT_EQ(gpu_selection_kind_from_string(to_string(v)), v);
  EXPECT_EQ(proposer_kind_from_string("Tune"), std::nullopt);
  EXPECT_EQ(log_level_from_string("warning"), std::nullopt);
}

TEST(CampaignSpec, MinimalCampaignTakesEveryDefault) {
  const std::string text = "name = \"minimal\"\n[[jobs]]\nproblem = \"valid_problem.toml\"\n";
  auto spec = parse_campaign(text, fixture("minimal.toml"));
  ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
  EXPECT_EQ(spec->name, "minimal");
  EXPECT_EQ(spec->raw_text, text);
  EXPECT_EQ(spec->run_root, fixture("runs"));
  ASSERT_EQ(spec->jobs.size(), 1u);
  EXPECT_EQ(spec->jobs[0].name, "scale"); // the problem's name
  EXPECT_EQ(spec->jobs[0].problem_path, fixture("valid_problem.toml"));
  EXPECT_EQ(spec->jobs[0].problem.name, "scale");
  EXPECT_EQ(spec->gpus.kind, gpu_selection_kind::all);
  EXPECT_EQ(spec->budget, budget_spec{});
  EXPECT_EQ(spec->budget.iterations, 10u);
  EXPECT_EQ(spec->budget.branches, 4u);
  EXPECT_EQ(spec->budget.wall_time_s, 8.0 * 3600.0);
  EXPECT_EQ(spec->budget.patience, 3u);
  EXPECT_EQ(spec->budget.noise_threshold, 0.02);
  EXPECT_EQ(spec->proposer.kind, proposer_kind::tune);
  EXPECT_EQ(spec->proposer.strategy, search_strategy::annealing);
  EXPECT_EQ(spec->proposer.seed, defaults::seed);
  EXPECT_EQ(spec->proposer.max_evaluations, std::nullopt);
  EXPECT_FALSE(spec->llm.has_value());
  EXPECT_EQ(spec->feed.endpoint, "tcp://127.0.0.1:5757");
  EXPECT_FALSE(spec->feed.allow_remote);
  EXPECT_EQ(spec->feed.high_water_mark, 10000u);
  EXPECT_EQ(spec->log, log_level::info);
  EXPECT_EQ(spec->supervision, supervision_policy{});
}

TEST(CampaignSpec, EveryFieldIsRead) {
  auto spec = load_campaign(fixture("valid_campaign.toml"));
  ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
  EXPECT_EQ(spec->gpus.kind, gpu_selection_kind::listed);
  EXPECT_EQ(spec->gpus.ordinals, (std::vector<std::uint32_t>{0, 2}));
  ASSERT_EQ(spec->jobs.size(), 2u);
  EXPECT_EQ(spec->jobs[1].name, "scale_again");
  EXPECT_EQ(spec->jobs[1].place.line, 7u);
  EXPECT_EQ(spec->budget.iterations, 3u);
  EXPECT_EQ(spec->budget.branches, 8u);
  EXPECT_EQ(spec->budget.wall_time_s, 600.0);
  EXPECT_EQ(spec->budget.patience, 2u);
  EXPECT_EQ(spec->budget.noise_threshold, 0.05);
  EXPECT_EQ(spec->proposer.kind, proposer_kind::llm);
  EXPECT_EQ(spec->proposer.strategy, search_strategy::random);
  EXPECT_EQ(spec->proposer.seed, 7u);
  EXPECT_EQ(spec->proposer.max_evaluations, 100u);
  ASSERT_TRUE(spec->llm.has_value());
  EXPECT_EQ(spec->llm->provider, llm_provider::openai);
  EXPECT_EQ(spec->llm->model, "gpt-x");
  EXPECT_EQ(spec->llm->api_key_env, "OPENAI_API_KEY"); // the provider's default
  EXPECT_EQ(spec->llm->base_url, "https://llm.example.com/v1");
  EXPECT_EQ(spec->feed.endpoint, "tcp://0.0.0.0:6000");
  EXPECT_TRUE(spec->feed.allow_remote);
  EXPECT_EQ(spec->feed.high_water_mark, 500u);
  EXPECT_EQ(spec->log, log_level::debug);
  EXPECT_EQ(spec->supervision.max_restarts, 2u);
  EXPECT_EQ(spec->supervision.window_s, 30u);
  EXPECT_EQ(spec->supervision.backoff_initial_ms, 50u);
  EXPECT_EQ(spec->supervision.backoff_factor, 3.0);
  EXPECT_EQ(spec->supervision.backoff_max_ms, 1000u);
}

TEST(CampaignSpecFixtures, NonLoopbackFeedWithoutAllowRemoteIsRejected) {
  const auto errors = errors_of("campaign_remote_feed.toml");
  const auto* e = expect_error(errors, fixture("campaign_remote_feed.toml"), "feed.endpoint", 7,
                               "allow_remote is false");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(contains(e->hint, "allow_remote = true"));
}

TEST(CampaignSpecFixtures, JobWithABadProblemNamesTheJobAndTheProblemFilesError) {
  const auto errors = errors_of("campaign_bad_job.toml");
  expect_error(errors, fixture("campaign_bad_job.toml"), "jobs[1].problem", 7,
               "has 1 error");
  // The problem's own error names the problem file and its line.
  expect_error(errors, fixture("bad_dtype.toml"), "args[0].dtype", 12, "float32");
  EXPECT_EQ(errors.size(), 2u) << to_string(errors);
}

TEST(CampaignSpecFixtures, EveryErrorOfACampaignIsCollected) {
  const auto errors = errors_of("campaign_errors.toml");
  const auto path = fixture("campaign_errors.toml");
  expect_error(errors, path, "gpus[1]", 2, "listed twice");
  expect_error(errors, path, "jobs[0].problem", 5, "problem spec not found");
  const auto* typo = expect_error(errors, path, "budget.iteratons", 8, "unknown key");
  ASSERT_NE(typo, nullptr);
  EXPECT_EQ(typo->hint, "did you mean 'iterations'?");
  expect_error(errors, path, "budget.branches", 9, "must be in [1, 256]");
  expect_error(errors, path, "proposer.kind", 12, "needs an [llm] table");
  const auto* strategy = expect_error(errors, path, "proposer.strategy", 13, "anealing");
  ASSERT_NE(strategy, nullptr);
  EXPECT_EQ(strategy->hint, "did you mean 'annealing'?");
  expect_error(errors, path, "log.level", 16, "unknown value 'verbose'");
  expect_error(errors, path, "supervision.backoff_max_ms", 20, "below the initial back-off");
  EXPECT_EQ(errors.size(), 8u) << to_string(errors);
}

TEST(CampaignSpecFixtures, ApiKeyPastedInsteadOfItsVariableNameIsRejected) {
  const auto errors = errors_of("campaign_api_key.toml");
  const auto* e = expect_error(errors, fixture("campaign_api_key.toml"), "llm.api_key_env", 12,
                               "not the name of an environment variable");
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(contains(to_string(*e), "sk-ant")); // never echo what may be a secret
}

TEST(CampaignSpecFixtures, DuplicateJobNamesAreRejected) {
  const auto errors = errors_of("campaign_duplicate_jobs.toml");
  expect_error(errors, fixture("campaign_duplicate_jobs.toml"), "jobs[1].name", 7,
               "'scale' is used twice");
}

TEST(CampaignSpecChecks, JobsGpusAndSyntaxAreValidated) {
  auto no_jobs = parse_campaign("name = \"x\"\njobs = []\ngpus = []\n", fixture("inline.toml"));
  ASSERT_FALSE(no_jobs.has_value());
  EXPECT_NE(find_error(no_jobs.error(), "jobs"), nullptr);
  EXPECT_NE(find_error(no_jobs.error(), "gpus"), nullptr);

  auto missing = parse_campaign("name = \"x\"\ngpus = \"some\"\n", fixture("inline.toml"));
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(find_error(missing.error(), "jobs"), nullptr);
  EXPECT_NE(find_error(missing.error(), "gpus"), nullptr);

  auto syntax = parse_campaign("name = \"x\n", fixture("inline.toml"));
  ASSERT_FALSE(syntax.has_value());
  EXPECT_EQ(syntax.error().front().line, 1u);
}

TEST(CampaignSpecChecks, NumbersOutOfRangeAreRejected) {
  auto spec = parse_campaign(R"(name = "x"
[[jobs]]
problem = "valid_problem.toml"
[budget]
wall_time_s = -1
noise_threshold = 1.5
patience = 0
[supervision]
backoff_factor = 0.5
window_s = 0
[feed]
high_water_mark = 0
endpoint = "udp://127.0.0.1:1"
[llm]
provider = "gemini"
model = ""
base_url = "ftp://x"
[proposer]
kind = "replay"
)",
                             fixture("inline.toml"));
  ASSERT_FALSE(spec.has_value());
  const auto& errors = spec.error();
  for (const char* key : {"budget.wall_time_s", "budget.noise_threshold", "budget.patience",
                          "supervision.backoff_factor", "supervision.window_s",
                          "feed.high_water_mark", "feed.endpoint", "llm.provider", "llm.model",
                          "llm.base_url", "proposer.kind"})
    EXPECT_NE(find_error(errors, key), nullptr) << key << "\n" << to_string(errors);
}

TEST(CampaignSpec, FeedEndpointsStayOnThisHostUnlessRemoteIsAllowed) {
  auto accepted = [](const std::string& endpoint, bool allow_remote) {
    auto spec = parse_campaign("name = \"x\"\n[[jobs]]\nproblem = \"valid_problem.toml\"\n[feed]\n"
                               "endpoint = \"" + endpoint + "\"\nallow_remote = "
                                 + (allow_remote ? "true" : "false") + "\n",
                               fixture("inline.toml"));
    return spec.has_value();
  };
  for (auto local : {"tcp://127.0.0.1:5757", "tcp://127.0.0.2:*", "tcp://localhost:5757",
                     "tcp://[::1]:5757", "ipc:///tmp/warpforge.feed", "inproc://feed"})
    EXPECT_TRUE(accepted(local, false)) << local;
  for (auto remote : {"tcp://*:5757", "tcp://0.0.0.0:5757", "tcp://10.1.2.3:5757", "tcp://eth0:5757"}) {
    EXPECT_FALSE(accepted(remote, false)) << remote;
    EXPECT_TRUE(accepted(remote, true)) << remote;
  }
  EXPECT_FALSE(accepted("tcp://127.0.0.1", true)) << "no port";
}

TEST(CampaignSpec, ReplayNeedsAnExistingRunDirectory) {
  auto spec = parse_campaign(R"(name = "x"
[[jobs]]
problem = "valid_problem.toml"
[proposer]
kind = "replay"
replay_from = "."
)",
                             fixture("inline.toml"));
  ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
  EXPECT_EQ(spec->proposer.replay_from, fixture(""));
}

} // namespace
TEST(CampaignSpec, RunDirModeIsOctalAndKeepsTheOwnersRwx) {
  const auto parse = [](const std::string& mode) {
    return parse_campaign("name = \"m\"\nrun_dir_mode = \"" + mode + "\"\n[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR
                          "/examples/vector_add/problem.toml\"\n", "m.toml");
  };
  auto shared = parse("0750");
  ASSERT_TRUE(shared) << to_string(shared.error());
  EXPECT_EQ(shared->run_dir_mode, 0750u);
  for (const std::string bad : {"0600", "750x", "99", ""}) {
    auto refused = parse(bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error().front().key, "run_dir_mode") << bad;
  }
}

} // namespace warpforge::config

namespace warpforge::config {
namespace {

using testing::expect_error;

// The llm proposer's limits and budgets: every key read, and a value out of range named.
TEST(CampaignSpec, LlmLimitsAndBudgetsAreReadAndCheckedWithTheirPlace) {
  const auto dir = std::filesystem::temp_directory_path() / ("wf-llm-spec-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& llm_table) {
    std::ofstream out{dir / name};
    out << "name = \"c\"\n[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml\"\n"
        << "[proposer]\nkind = \"llm\"\n[llm]\n" << llm_table;
    return (dir / name).string();
  };
  auto spec = load_campaign(write("good.toml",
    "provider = \"openai\"\nmodel = \"m\"\nbase_url = \"http://127.0.0.1:8000/v1\"\napi_key_env = \"\"\n"
    "max_tokens = 4096\ntemperature = 0.2\nmax_concurrent = 8\nmax_reasks = 1\nmax_fix_tries = 3\n"
    "budget_usd = 12.5\nbudget_tokens = 2000000\njudge = false\ncompaction_model = \"small\"\n"
    "compaction_threshold_chars = 5000\nfirst_byte_timeout_s = 30\ntotal_timeout_s = 120\nmax_attempts = 3\n"));
  ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
  const auto& l = *spec->llm;
  EXPECT_EQ(l.api_key_env, "") << "a local server that wants no key";
  EXPECT_EQ(l.max_tokens, 4096u);
  EXPECT_EQ(l.temperature, 0.2);
  EXPECT_EQ(l.max_concurrent, 8u);
  EXPECT_EQ(l.max_reasks, 1u);
  EXPECT_EQ(l.max_fix_tries, 3u);
  EXPECT_EQ(l.budget_usd, 12.5);
  EXPECT_EQ(l.budget_tokens, 2000000);
  EXPECT_FALSE(l.judge);
  EXPECT_EQ(l.compaction_model, "small");
  EXPECT_EQ(l.compaction_threshold_chars, 5000u);
  EXPECT_EQ(l.first_byte_timeout_s, 30.0);
  EXPECT_EQ(l.total_timeout_s, 120.0);
  EXPECT_EQ(l.max_attempts, 3u);

  const auto bad = write("bad.toml", "provider = \"anthropic\"\nmodel = \"m\"\nbudget_usd = -1.0\nmax_concurrent = 0\n"
                                     "temperature = 3.0\n");
  auto refused = load_campaign(bad);
  ASSERT_FALSE(refused.has_value());
  expect_error(refused.error(), bad, "llm.budget_usd", 9, "must be in");
  expect_error(refused.error(), bad, "llm.max_concurrent", 10, "must be in [1, 256]");
  expect_error(refused.error(), bad, "llm.temperature", 11, "must be in [0, 2], got 3");
  std::filesystem::remove_all(dir);
}

TEST(CampaignSpec, VerifySanitizeSetsSanitizeChampionAndIsOffByDefault) {
  const std::string job = "[[jobs]]\nproblem = \"valid_problem.toml\"\n";
  auto plain = parse_campaign("name = \"v\"\n" + job, fixture("minimal.toml"));
  ASSERT_TRUE(plain.has_value()) << to_string(plain.error());
  EXPECT_FALSE(plain->sanitize_champion);
  auto on = parse_campaign("name = \"v\"\n" + job + "[verify]\nsanitize = true\n", fixture("minimal.toml"));
  ASSERT_TRUE(on.has_value()) << to_string(on.error());
  EXPECT_TRUE(on->sanitize_champion);
  auto typo = parse_campaign("name = \"v\"\n" + job + "[verify]\nsanitise = true\n", fixture("minimal.toml"));
  ASSERT_FALSE(typo.has_value());
  EXPECT_NE(testing::find_error(typo.error(), "verify.sanitise"), nullptr) << to_string(typo.error());
  auto wrong = parse_campaign("name = \"v\"\n" + job + "[verify]\nsanitize = 1\n", fixture("minimal.toml"));
  ASSERT_FALSE(wrong.has_value());
  EXPECT_NE(testing::find_error(wrong.error(), "verify.sanitize"), nullptr) << to_string(wrong.error());
}

TEST(CampaignSpec, ProfileToolIsCuptiByDefaultNcuOnRequestAndAnythingElseIsAnErrorAtTheKey) {
  const std::string job = "[[jobs]]\nproblem = \"valid_problem.toml\"\n";
  auto plain = parse_campaign("name = \"p\"\n" + job, fixture("minimal.toml"));
  ASSERT_TRUE(plain.has_value()) << to_string(plain.error());
  EXPECT_EQ(plain->profiler, profile_tool::cupti);
  auto ncu = parse_campaign("name = \"p\"\n" + job + "[profile]\ntool = \"ncu\"\n", fixture("minimal.toml"));
  ASSERT_TRUE(ncu.has_value()) << to_string(ncu.error());
  EXPECT_EQ(ncu->profiler, profile_tool::ncu);
  auto unknown = parse_campaign("name = \"p\"\n" + job + "[profile]\ntool = \"nsys\"\n", fixture("minimal.toml"));
  ASSERT_FALSE(unknown.has_value());
  const auto* error = testing::find_error(unknown.error(), "profile.tool");
  ASSERT_NE(error, nullptr) << to_string(unknown.error());
  EXPECT_NE(to_string(unknown.error()).find("cupti"), std::string::npos) << "the error names the choices";
  auto typo = parse_campaign("name = \"p\"\n" + job + "[profile]\ntools = \"ncu\"\n", fixture("minimal.toml"));
  ASSERT_FALSE(typo.has_value());
  EXPECT_NE(testing::find_error(typo.error(), "profile.tools"), nullptr) << to_string(typo.error());
}

// [profile] champions: the tuner reads no diagnosis, so by default only each job's final best is
// profiled; a proposer that reads one (llm, replay) gets every champion's; either on request.
TEST(CampaignSpec, ProfiledChampionsFollowTheProposerUnlessGivenAndAnythingElseIsAnErrorAtTheKey) {
  const std::string job = "[[jobs]]\nproblem = \"valid_problem.toml\"\n";
  auto tune = parse_campaign("name = \"p\"\n" + job, fixture("minimal.toml"));
  ASSERT_TRUE(tune.has_value()) << to_string(tune.error());
  EXPECT_EQ(tune->profiled_champions, std::nullopt);
  EXPECT_EQ(profiled_champions_of(*tune), champion_profiles::final);
  auto llm = *tune;
  llm.proposer.kind = proposer_kind::llm;
  EXPECT_EQ(profiled_champions_of(llm), champion_profiles::each);
  llm.proposer.kind = proposer_kind::replay;
  EXPECT_EQ(profiled_champions_of(llm), champion_profiles::each);
  auto each = parse_campaign("name = \"p\"\n" + job + "[profile]\nchampions = \"each\"\n", fixture("minimal.toml"));
  ASSERT_TRUE(each.has_value()) << to_string(each.error());
  EXPECT_EQ(profiled_champions_of(*each), champion_profiles::each);
  auto none = parse_campaign("name = \"p\"\n" + job + "[profile]\nchampions = \"none\"\n", fixture("minimal.toml"));
  ASSERT_TRUE(none.has_value()) << to_string(none.error());
  EXPECT_EQ(profiled_champions_of(*none), champion_profiles::none);
  auto wrong = parse_campaign("name = \"p\"\n" + job + "[profile]\nchampions = \"all\"\n", fixture("minimal.toml"));
  ASSERT_FALSE(wrong.has_value());
  ASSERT_NE(testing::find_error(wrong.error(), "profile.champions"), nullptr) << to_string(wrong.error());
  EXPECT_NE(to_string(wrong.error()).find("final"), std::string::npos) << "the error names the choices";
}

} // namespace
} // namespace warpforge::config
