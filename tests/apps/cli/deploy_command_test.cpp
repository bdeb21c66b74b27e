// `warpforge deploy` end to end through the real binary (deploy_fixture.hpp: a finished tune
// campaign on stand-in GPUs whose problem deploys into a stand-in project): an accepted champion
// with its store rows and feed events, a regression rolled back byte for byte, --json, --recover
// on a clean project and after a deployer killed mid-build, the inputs that cannot start, and a
// campaign with [deploy] at_end = true deploying by itself.

#include "deploy_fixture.hpp"

#include <simdjson.h>

#include <algorithm>
#include <regex>

namespace {

namespace fs = std::filesystem;
using warpforge::testing::deploy_fixture;
using warpforge::testing::stand_in_kernel;

class DeployCommand : public deploy_fixture {};

// The first deployment's step names in order, from the store.
const std::vector<std::string> accepted_steps = {
  "gate:passed",   "lock:passed",  "build_original:passed", "baseline:passed",
  "backup:passed", "write:passed", "build:passed",          "verify:passed",
  "time:passed",   "decide:passed", "unlock:passed"};

TEST_F(DeployCommand, AChampionFasterInTheRealProgramIsAcceptedWithItsRowsAndEvents) {
  const auto run = finished_run();
  ASSERT_FALSE(run.empty());
  const auto deployed = warpforge({"deploy", run.string()});
  ASSERT_EQ(deployed.code, 0) << deployed.out << deployed.err;
  EXPECT_NE(deployed.out.find("deploy: accepted"), std::string::npos) << deployed.out;
  EXPECT_NE(deployed.out.find("before: 2 kernel_ms"), std::string::npos) << deployed.out;
  EXPECT_NE(deployed.out.find("after:  1 kernel_ms"), std::string::npos) << deployed.out;
  // RESULT timing times the program's value only: the report says no other kernel was timed.
  EXPECT_NE(deployed.out.find("  other kernels were not timed: timing \"result\" reads the program's RESULT line only"),
            std::string::npos)
    << deployed.out;

  // The champion's BLOCK, guarded, above the original's; the text outside the region untouched.
  const auto text = kernel_text();
  std::smatch found;
  ASSERT_TRUE(std::regex_search(text, found, std::regex{"// warpforge:begin add\n#ifndef BLOCK\n#define BLOCK (\\d+)\n#endif\n#ifndef BLOCK\n#define BLOCK 256\n"}))
    << text;
  EXPECT_EQ(count("SELECT count(*) FROM deployments d JOIN iterations i ON 'iter-' || i.number = "
                  "substr(d.champion, 1, instr(d.champion, '/') - 1) JOIN branches b ON b.iteration_id = i.id "
                  "AND 'branch-' || b.ordinal = substr(d.champion, instr(d.champion, '/') + 1) "
                  "WHERE b.defines_json = '{\"BLOCK\":" + found[1].str() + "}'"), 1)
    << "the value written is the champion's (" << text_query("SELECT champion FROM deployments") << ")";
  EXPECT_EQ(text.rfind("// The stand-in project's kernel: c = a + b.\n", 0), 0u);
  EXPECT_TRUE(text.ends_with("// warpforge:end add\n// the host code below the region launches it\n"));
  EXPECT_EQ(read(project / "build/binary.txt"), text) << "the project was built from the champion";
  EXPECT_FALSE(marker_exists());

  EXPECT_EQ(count("SELECT count(*) FROM deployments WHERE outcome = 'accepted' AND job = 'vector_add' AND "
                  "before_median = 2.0 AND after_median = 1.0 AND unit = 'kernel_ms' AND finished_at IS NOT NULL"), 1);
  EXPECT_EQ(steps_of(1), accepted_steps);
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE type = 'deploy_step'"),
            static_cast<std::int64_t>(accepted_steps.size()));
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE type = 'deploy_finished' AND json LIKE '%\"outcome\":\"accepted\"%'"), 1);
  EXPECT_GT(count("SELECT min(seq) FROM events WHERE type = 'deploy_finished'"),
            count("SELECT max(seq) FROM events WHERE type = 'deploy_step'"))
    << "the finish comes after every step";
  EXPECT_TRUE(fs::exists(run / text_query("SELECT work_dir FROM deployments") / "journal.json"));
}

TEST_F(DeployCommand, ASlowerSourceIsRolledBackAndTheProjectFileIsByteIdentical) {
  const auto run = finished_run();
  ASSERT_FALSE(run.empty());
  const auto before = kernel_text();
  const auto deployed = warpforge({"deploy", run.string(), "--source", source_saying("SLOW").string()});
  EXPECT_EQ(deployed.code, 1) << deployed.out << deployed.err;
  EXPECT_NE(deployed.out.find("deploy: rolled_back: regression"), std::string::npos) << deployed.out;
  EXPECT_EQ(kernel_text(), before);
  EXPECT_EQ(read(project / "build/binary.txt"), before) << "the original was rebuilt";
  EXPECT_FALSE(marker_exists());
  EXPECT_EQ(count("SELECT count(*) FROM deployments WHERE outcome = 'rolled_back' AND given = 1 AND "
                  "before_median = 2.0 AND after_median = 3.0"), 1);
  const auto steps = steps_of(1);
  const auto decide = std::find(steps.begin(), steps.end(), "decide:failed");
  ASSERT_NE(decide, steps.end()) << ::testing::PrintToString(steps);
  EXPECT_NE(std::find(decide, steps.end(), "restore:passed"), steps.end()) << ::testing::PrintToString(steps);
  EXPECT_NE(std::find(decide, steps.end(), "rebuild:passed"), steps.end()) << ::testing::PrintToString(steps);
  EXPECT_EQ(steps.back(), "unlock:passed");
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE type = 'deploy_finished' AND json LIKE '%\"outcome\":\"rolled_back\"%'"), 1);
}

TEST_F(DeployCommand, JsonOutputParsesWithTheOutcomeAndTimings) {
  const auto run = finished_run();
  ASSERT_FALSE(run.empty());
  const auto deployed = warpforge({"deploy", run.string(), "--json"});
  ASSERT_EQ(deployed.code, 0) << deployed.out << deployed.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(deployed.out).get(doc), simdjson::SUCCESS) << deployed.out;
  std::string_view outcome, work_dir, unit;
  double before = 0, after = 0;
  ASSERT_EQ(doc["outcome"].get(outcome), simdjson::SUCCESS);
  EXPECT_EQ(outcome, "accepted");
  ASSERT_EQ(doc["work_dir"].get(work_dir), simdjson::SUCCESS);
  EXPECT_TRUE(fs::exists(fs::path{work_dir} / "journal.json")) << work_dir;
  ASSERT_EQ(doc["unit"].get(unit), simdjson::SUCCESS);
  EXPECT_EQ(unit, "kernel_ms");
  ASSERT_EQ(doc["before"]["median"].get(before), simdjson::SUCCESS);
  ASSERT_EQ(doc["after"]["median"].get(after), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(before, 2.0);
  EXPECT_DOUBLE_EQ(after, 1.0);
  bool timed = true; // RESULT timing: the journal's kernels say none was timed, and no rows
  ASSERT_EQ(doc["kernels"]["timed"].get(timed), simdjson::SUCCESS) << deployed.out;
  EXPECT_FALSE(timed);
  EXPECT_NE(doc["kernels"]["rows"].error(), simdjson::SUCCESS) << deployed.out;
}

TEST_F(DeployCommand, RecoverOnACleanProjectHasNothingToRecover) {
  const auto run = finished_run();
  ASSERT_FALSE(run.empty());
  const auto recovered = warpforge({"deploy", run.string(), "--recover"});
  EXPECT_EQ(recovered.code, 0) << recovered.out << recovered.err;
  EXPECT_NE(recovered.out.find("deploy: nothing_to_recover"), std::string::npos) << recovered.out;
  EXPECT_EQ(kernel_text(), stand_in_kernel);
  EXPECT_EQ(count("SELECT count(*) FROM deployments WHERE outcome = 'nothing_to_recover'"), 1);
}

TEST_F(DeployCommand, ADeployerKilledMidBuildLeavesTheMarkerRefusesTheNextAndRecoversTheOriginal) {
  const auto run = finished_run();
  ASSERT_FALSE(run.empty());
  const auto original = kernel_text();
  const auto killed = warpforge({"deploy", run.string(), "--source", source_saying("CRASH").string()});
  ASSERT_EQ(killed.code, 128 + SIGKILL) << "the build killed the deployer: " << killed.out << killed.err;
  EXPECT_TRUE(marker_exists()) << "a kill mid-deploy leaves the marker naming the backup";
  EXPECT_NE(kernel_text().find("// CRASH"), std::string::npos) << "the champion was written when it died";

  const auto refused = warpforge({"deploy", run.string()});
  EXPECT_EQ(refused.code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.out.find("deploy: refused"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("--recover"), std::string::npos) << refused.out;
  EXPECT_NE(kernel_text().find("// CRASH"), std::string::npos) << "a refusal touches nothing";

  const auto recovered = warpforge({"deploy", run.string(), "--recover"});
  EXPECT_EQ(recovered.code, 0) << recovered.out << recovered.err;
  EXPECT_NE(recovered.out.find("deploy: recovered"), std::string::npos) << recovered.out;
  EXPECT_EQ(kernel_text(), original) << "byte for byte";
  EXPECT_EQ(read(project / "build/binary.txt"), original) << "and rebuilt";
  EXPECT_FALSE(marker_exists());
  EXPECT_EQ(count("SELECT count(*) FROM deployments WHERE outcome = 'refused'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM deployments WHERE outcome = 'recovered'"), 1);
  // The killed deploy's own row is closed by the recovery, not left without an outcome.
  EXPECT_EQ(count("SELECT count(*) FROM deployments WHERE outcome = 'interrupted' AND reason LIKE "
                  "'killed before it ended%'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM deployments WHERE outcome = ''"), 0);

  const auto again = warpforge({"deploy", run.string()});
  EXPECT_EQ(again.code, 0) << "the project is free again: " << again.out << again.err;
}

TEST_F(DeployCommand, InputsThatCannotStartExitThreeOrTwoAndChangeNothing) {
  const auto missing = warpforge({"deploy", (dir / "no-such-run").string()});
  EXPECT_EQ(missing.code, 3) << missing.out << missing.err;
  EXPECT_NE(missing.err.find((dir / "no-such-run").string()), std::string::npos) << missing.err;

  const auto run = finished_run();
  ASSERT_FALSE(run.empty());
  const auto no_job = warpforge({"deploy", run.string(), "--job", "nosuch"});
  EXPECT_EQ(no_job.code, 3) << no_job.out << no_job.err;
  EXPECT_NE(no_job.err.find("no job 'nosuch'"), std::string::npos) << no_job.err;
  EXPECT_NE(no_job.err.find("its jobs: vector_add"), std::string::npos) << no_job.err;

  const auto both = warpforge({"deploy", run.string(), "--recover", "--source", "x.cu"});
  EXPECT_EQ(both.code, 2) << both.out << both.err;
  EXPECT_NE(both.err.find("--recover"), std::string::npos) << both.err;

  EXPECT_EQ(kernel_text(), stand_in_kernel);
  EXPECT_EQ(count("SELECT count(*) FROM deployments"), 0) << "nothing started, nothing recorded";
}

TEST_F(DeployCommand, ARunWhoseProblemHasNoDeployTableExitsThreeSayingSo) {
  write(dir / "problem.toml", std::string{warpforge::testing::vector_add_problem});
  const auto run = finished_run();
  ASSERT_FALSE(run.empty());
  const auto deployed = warpforge({"deploy", run.string()});
  EXPECT_EQ(deployed.code, 3) << deployed.out << deployed.err;
  EXPECT_NE(deployed.err.find("declare [deploy]"), std::string::npos) << deployed.err;
  EXPECT_EQ(kernel_text(), stand_in_kernel);
}

TEST_F(DeployCommand, ARunWhereNothingBeatTheBaselineHasNoChampionAndSaysWhy) {
  // One value: the tuner has no point to propose, the baseline stays the best.
  std::string only_default{warpforge::testing::vector_add_problem};
  const std::string values = "values = [32, 64, 128, 256, 512, 1024]";
  only_default.replace(only_default.find(values), values.size(), "values = [256]");
  write(dir / "problem.toml", only_default + std::string{warpforge::testing::deploy_table});
  const auto run = finished_run();
  ASSERT_FALSE(run.empty());
  ASSERT_EQ(count("SELECT count(*) FROM branches WHERE kind = 'baseline' AND outcome = 'passed'"), 1);
  const auto deployed = warpforge({"deploy", run.string()});
  EXPECT_EQ(deployed.code, 3) << deployed.out << deployed.err;
  EXPECT_NE(deployed.err.find("no branch beat its baseline"), std::string::npos) << deployed.err;
  EXPECT_EQ(kernel_text(), stand_in_kernel);
}

TEST_F(DeployCommand, ACampaignWithDeployAtEndDeploysItsChampionByItself) {
  const auto campaign = warpforge({"run", write_deploy_campaign(true).string()});
  ASSERT_EQ(campaign.code, 0) << campaign.out << campaign.err;
  EXPECT_NE(campaign.out.find("deploying vector_add into " + fs::canonical(project).string()), std::string::npos)
    << campaign.out;
  EXPECT_NE(campaign.out.find("deploy: accepted"), std::string::npos) << campaign.out;
  EXPECT_EQ(count("SELECT count(*) FROM deployments WHERE outcome = 'accepted' AND job = 'vector_add'"), 1);
  EXPECT_NE(kernel_text(), stand_in_kernel);
  EXPECT_FALSE(marker_exists());
}

} // namespace
