// What needs no cluster in pipeline/hosts/: Slurm's answers read (sbatch --parsable's id, squeue's
// state words), the job record, and the refusals that come before any Slurm command runs.
#include "pipeline/hosts/sbatch_script.hpp"
#include "pipeline/hosts/slurm_client.hpp"
#include "pipeline/hosts/slurm_hosts.hpp"

#include "foundation/files/atomic_write.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

namespace warpforge::hosts {
namespace {

namespace fs = std::filesystem;

struct RunFolder : ::testing::Test {
  fs::path run = fs::temp_directory_path() / ("wf-hosts-" + std::to_string(::getpid()) + "-" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override { fs::create_directories(run); }
  void TearDown() override { fs::remove_all(run); }
  void record(const std::string& text) {
    ASSERT_TRUE(files::write_file_atomically(hosts_folder(run) / paths::job_record, text).has_value());
  }
};

TEST(SlurmAnswers, SbatchParsableGivesTheIdAfterAnyWarning) {
  EXPECT_EQ(parse_parsable_job_id("123\n"), "123");
  EXPECT_EQ(parse_parsable_job_id("77;cluster1\n"), "77");
  EXPECT_EQ(parse_parsable_job_id("sbatch: warning: can't honor --ntasks-per-node set to 1\n456\n"), "456");
  EXPECT_EQ(parse_parsable_job_id(""), std::nullopt);
  EXPECT_EQ(parse_parsable_job_id("sbatch: error: Batch job submission failed: Invalid partition name\n"), std::nullopt);
}

TEST(SlurmAnswers, SqueueGivesItsStateWordAfterAnyWarningAndNothingForAJobItForgot) {
  EXPECT_EQ(parse_squeue_state("RUNNING\n"), "RUNNING");
  EXPECT_EQ(parse_squeue_state("squeue: warning: unknown option in slurm.conf\nCANCELLED\n"), "CANCELLED")
    << "a warning on the same stream is not the state (it would read as an unknown, active, state)";
  EXPECT_EQ(parse_squeue_state(""), std::nullopt);
  EXPECT_EQ(parse_squeue_state("squeue: warning: something\n"), std::nullopt);
}

TEST(SlurmAnswers, SqueueStateWordsAreActiveCompletingOrEnded) {
  for (const auto* word : {"PENDING", "RUNNING", "SUSPENDED", "CONFIGURING", "REQUEUED", "RESIZING", "SIGNALING"})
    EXPECT_EQ(job_activity_of_state(word), job_activity::active) << word;
  EXPECT_EQ(job_activity_of_state("COMPLETING"), job_activity::completing);
  for (const auto* word : {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY"})
    EXPECT_EQ(job_activity_of_state(word), job_activity::ended) << word;
  EXPECT_EQ(job_activity_of_state("SOME_NEW_STATE"), job_activity::active) << "unknown: cancel rather than leave";
}

TEST(SlurmAnswers, EveryOutcomeHasItsOwnWord) {
  std::set<std::string_view> words;
  for (auto v : all_job_activities)
    words.insert(to_string(v));
  for (auto v : all_cancel_outcomes)
    words.insert(to_string(v));
  EXPECT_EQ(words.size(), std::size(all_job_activities) + std::size(all_cancel_outcomes));
  EXPECT_EQ(to_string(cancel_outcome::already_ended), "already_ended");
}

TEST_F(RunFolder, WithoutARecordThereIsNoJobToCancel) {
  auto recorded = recorded_job(run);
  ASSERT_TRUE(recorded.has_value());
  EXPECT_EQ(*recorded, std::nullopt);
  auto cancelled = cancel_hosts(run);
  ASSERT_TRUE(cancelled.has_value()) << cancelled.error().message;
  EXPECT_EQ(cancelled->outcome, cancel_outcome::no_job);
}

TEST_F(RunFolder, TheRecordHoldsTheJobId) {
  record("4711\n");
  auto recorded = recorded_job(run);
  ASSERT_TRUE(recorded.has_value());
  EXPECT_EQ(*recorded, "4711");
}

TEST_F(RunFolder, ARecordThatHoldsNoJobIdIsAnErrorNamingTheFileAndItStays) {
  record("4711; rm -rf /\n");
  auto cancelled = cancel_hosts(run);
  ASSERT_FALSE(cancelled.has_value());
  EXPECT_NE(cancelled.error().message.find((hosts_folder(run) / paths::job_record).string()), std::string::npos)
    << cancelled.error().message;
  EXPECT_TRUE(fs::exists(hosts_folder(run) / paths::job_record));
}

TEST_F(RunFolder, ARunDirectoryWithASpaceIsRefusedBeforeAnythingIsSubmitted) {
  const fs::path spaced = run / "my run";
  config::slurm_spec spec;
  spec.time_limit = "5";
  host_command command;
  command.warpforge = "/bin/true";
  command.coordinator.host = "127.0.0.1";
  command.coordinator.port = 4242;
  command.credential = "/c";
  auto job = submit_hosts(spec, command, spaced);
  ASSERT_FALSE(job.has_value());
  EXPECT_NE(job.error().message.find("holds a space"), std::string::npos) << job.error().message;
  EXPECT_FALSE(fs::exists(hosts_folder(spaced)));
}

} // namespace
} // namespace warpforge::hosts
