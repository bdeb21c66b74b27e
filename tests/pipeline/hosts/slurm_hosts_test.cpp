// The hosts of a run on a real one-node Slurm cluster (slurm_cluster.sh: munge, slurmctld and
// slurmd from Debian's packages on 127.0.0.1): submit_hosts starts one stand-in host per node
// through sbatch and srun, cancel_hosts leaves no job in squeue and no process behind — also when
// the submitting process is interrupted — and a job that ended is never cancelled twice.
// Where the cluster cannot run (no packages, not root), every case is skipped with the reason.
#include "pipeline/hosts/sbatch_script.hpp"
#include "pipeline/hosts/slurm_hosts.hpp"

#include "gpu/runner/child_process.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace warpforge::hosts {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const fs::path here = fs::path{WARPFORGE_SOURCE_DIR} / "tests" / "pipeline" / "hosts";
constexpr auto cluster_start_timeout = 120s;
constexpr auto job_start_timeout = 90s; // the scheduler's pass, then srun's step

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct command_result {
  std::optional<int> exit_code;
  std::string output;
};

// `program arguments...` found on PATH (through /usr/bin/env), its output and exit code.
command_result run_command(const std::vector<std::string>& words, const fs::path& log,
                           std::chrono::milliseconds timeout = 60s) {
  fs::remove(log);
  auto child = gpu::child_process::spawn({.executable = "/usr/bin/env", .arguments = words, .environment = {}, .output_file = log});
  if (!child)
    return {std::nullopt, child.error().detail};
  auto exit = child->wait_for_exit(timeout);
  if (!exit)
    child->kill_and_reap();
  return {exit ? exit->exit_code : std::nullopt, read_text(log)};
}

class SlurmHosts : public ::testing::Test {
protected:
  static inline fs::path cluster;
  static inline std::string unavailable; // why the cluster cannot run here: the cases skip
  static inline std::string broken;      // the start failed otherwise: the cases fail

  static void SetUpTestSuite() {
    cluster = fs::temp_directory_path() / ("wf-slurm-" + std::to_string(::getpid()));
    const fs::path log = fs::temp_directory_path() / ("wf-slurm-" + std::to_string(::getpid()) + ".log");
    auto started = run_command({(here / "slurm_cluster.sh").string(), "start", cluster.string()}, log,
                               cluster_start_timeout);
    fs::remove(log);
    if (started.exit_code == 77) {
      unavailable = started.output;
      return;
    }
    if (started.exit_code != 0) {
      broken = "slurm_cluster.sh start: " + started.output;
      return;
    }
    const auto at = started.output.find("SLURM_CONF=");
    const std::string conf = started.output.substr(at + 11, started.output.find('\n', at) - at - 11);
    ::setenv("SLURM_CONF", conf.c_str(), 1); // for sbatch, squeue, scancel and srun in the job
  }

  static void TearDownTestSuite() {
    if (!fs::exists(cluster))
      return;
    const fs::path log = fs::temp_directory_path() / ("wf-slurm-stop-" + std::to_string(::getpid()) + ".log");
    run_command({(here / "slurm_cluster.sh").string(), "stop", cluster.string()}, log);
    fs::remove(log);
  }

  void SetUp() override {
    if (!unavailable.empty())
      GTEST_SKIP() << unavailable;
    ASSERT_TRUE(broken.empty()) << broken;
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    run = fs::temp_directory_path() / ("wf-slurm-run-" + std::to_string(::getpid()) + "-" + name);
    credential = run / "credential";
    fs::create_directories(credential);
  }

  void TearDown() override {
    if (!run.empty()) {
      (void)cancel_hosts(run, 10s); // a failed case leaves no job behind either
      fs::remove_all(run);
    }
  }

  config::slurm_spec one_node() const {
    config::slurm_spec spec;
    spec.nodes = 1;
    spec.gpus_per_node = 1;
    spec.time_limit = "5";
    spec.time_limit_s = 300;
    return spec;
  }

  host_command stand_in() const { return {here / "stand_in_host.sh", {"127.0.0.1", 4242}, credential}; }

  // The stand-in host's marker of `job_id` (key=value lines), once it has started.
  std::map<std::string, std::string> marker_of(const std::string& job_id) const {
    const fs::path marker = credential / ("host-" + job_id + ".marker");
    const auto deadline = std::chrono::steady_clock::now() + job_start_timeout;
    while (!fs::exists(marker) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(100ms);
    std::map<std::string, std::string> values;
    std::istringstream lines{read_text(marker)};
    for (std::string line; std::getline(lines, line);)
      if (const auto eq = line.find('='); eq != std::string::npos)
        values[line.substr(0, eq)] = line.substr(eq + 1);
    return values;
  }

  // Whether squeue lists `job_id` now (its default states: pending, running, completing...).
  bool in_squeue(const std::string& job_id) const {
    auto listed = run_command({"squeue", "--noheader", "--format=%i"}, run / "squeue-check.log");
    EXPECT_EQ(listed.exit_code, 0) << listed.output;
    std::istringstream lines{listed.output};
    for (std::string line; std::getline(lines, line);)
      if (line.find_first_not_of(' ') != std::string::npos && line.substr(line.find_first_not_of(' ')) == job_id)
        return true;
    return false;
  }

  static bool process_gone(int pid) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (::kill(pid, 0) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(50ms);
    return ::kill(pid, 0) != 0 && errno == ESRCH;
  }

  fs::path run;
  fs::path credential;
};

TEST_F(SlurmHosts, ASubmittedHostRunsOnItsNodeAndCancellingLeavesNoJobAndNoProcess) {
  auto job = submit_hosts(one_node(), stand_in(), run);
  ASSERT_TRUE(job.has_value()) << job.error().message;
  EXPECT_EQ(job->replaced_id, "");
  EXPECT_EQ(read_text(hosts_folder(run) / paths::job_record), job->id + "\n");
  EXPECT_TRUE(fs::exists(hosts_folder(run) / paths::script));
  EXPECT_EQ(job->output, hosts_folder(run) / ("slurm-" + job->id + ".out")) << "the script's --output";

  auto marker = marker_of(job->id);
  ASSERT_FALSE(marker.empty()) << "the stand-in host did not start within " << job_start_timeout.count() << " s; "
                               << read_text(job->output);
  EXPECT_EQ(marker["args"], "host --coordinator 127.0.0.1:4242 --credential " + credential.string());
  EXPECT_EQ(marker["job"], job->id);
  EXPECT_EQ(marker["gpus_on_node"], "1");
  EXPECT_EQ(marker["tasks"], "1");
  EXPECT_TRUE(in_squeue(job->id));

  auto cancelled = cancel_hosts(run);
  ASSERT_TRUE(cancelled.has_value()) << cancelled.error().message;
  EXPECT_EQ(cancelled->outcome, cancel_outcome::cancelled);
  EXPECT_EQ(cancelled->job_id, job->id);
  EXPECT_FALSE(in_squeue(job->id));
  EXPECT_TRUE(process_gone(std::stoi(marker["pid"]))) << "the stand-in host still runs";
  EXPECT_FALSE(fs::exists(hosts_folder(run) / paths::job_record));

  auto again = cancel_hosts(run);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->outcome, cancel_outcome::no_job);
}

TEST_F(SlurmHosts, AJobThatEndedIsNotCancelledAgain) {
  auto job = submit_hosts(one_node(), stand_in(), run);
  ASSERT_TRUE(job.has_value()) << job.error().message;
  auto marker = marker_of(job->id);
  ASSERT_FALSE(marker.empty()) << read_text(job->output);
  // The job ends without warpforge (its time limit, an operator): scancel from outside.
  auto outside = run_command({"scancel", job->id}, run / "outside-scancel.log");
  ASSERT_EQ(outside.exit_code, 0) << outside.output;
  ASSERT_TRUE(process_gone(std::stoi(marker["pid"])));

  auto cancelled = cancel_hosts(run);
  ASSERT_TRUE(cancelled.has_value()) << cancelled.error().message;
  EXPECT_EQ(cancelled->outcome, cancel_outcome::already_ended);
  EXPECT_FALSE(fs::exists(hosts_folder(run) / "scancel.log")) << "cancel_hosts ran scancel on an ended job";
  EXPECT_FALSE(fs::exists(hosts_folder(run) / paths::job_record));
}

TEST_F(SlurmHosts, ResumeSubmitsAgainAndCancelsTheJobOfTheKilledProcessFirst) {
  auto first = submit_hosts(one_node(), stand_in(), run);
  ASSERT_TRUE(first.has_value()) << first.error().message;
  auto first_marker = marker_of(first->id);
  ASSERT_FALSE(first_marker.empty()) << read_text(first->output);

  // The coordinator was killed (no cancel); `resume` submits again.
  auto second = submit_hosts(one_node(), stand_in(), run);
  ASSERT_TRUE(second.has_value()) << second.error().message;
  EXPECT_EQ(second->replaced_id, first->id);
  EXPECT_NE(second->id, first->id);
  EXPECT_TRUE(process_gone(std::stoi(first_marker["pid"])));
  EXPECT_EQ(read_text(hosts_folder(run) / paths::job_record), second->id + "\n");
  auto second_marker = marker_of(second->id);
  ASSERT_FALSE(second_marker.empty()) << read_text(second->output);

  auto cancelled = cancel_hosts(run);
  ASSERT_TRUE(cancelled.has_value()) << cancelled.error().message;
  EXPECT_EQ(cancelled->outcome, cancel_outcome::cancelled);
  EXPECT_FALSE(in_squeue(first->id));
  EXPECT_FALSE(in_squeue(second->id));
  EXPECT_TRUE(process_gone(std::stoi(second_marker["pid"])));
}

TEST_F(SlurmHosts, ASubmissionSlurmRefusesIsAnErrorQuotingSbatchAndLeavesNoRecord) {
  auto spec = one_node();
  spec.partition = "no-such-partition";
  auto job = submit_hosts(spec, stand_in(), run);
  ASSERT_FALSE(job.has_value());
  EXPECT_NE(job.error().message.find("sbatch did not submit"), std::string::npos) << job.error().message;
  EXPECT_NE(job.error().message.find("Invalid partition name"), std::string::npos) << job.error().message;
  EXPECT_FALSE(fs::exists(hosts_folder(run) / paths::job_record));
}

TEST_F(SlurmHosts, AnInterruptedSubmitterCancelsItsHostsAndLeavesNoJob) {
  const fs::path output = run / "submitter.log";
  auto submitter = gpu::child_process::spawn({.executable = WARPFORGE_SUBMIT_UNTIL_INTERRUPT,
                                              .arguments = {run.string(), stand_in().warpforge.string(), credential.string()},
                                              .environment = {},
                                              .output_file = output});
  ASSERT_TRUE(submitter.has_value()) << submitter.error().detail;
  std::string id;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline && submitter->running()) {
    auto recorded = recorded_job(run);
    if (recorded && *recorded) {
      id = **recorded;
      break;
    }
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_FALSE(id.empty()) << read_text(output);
  auto marker = marker_of(id);
  ASSERT_FALSE(marker.empty()) << read_text(output);

  ASSERT_EQ(::kill(submitter->pid(), SIGINT), 0);
  auto exit = submitter->wait_for_exit(60s);
  ASSERT_TRUE(exit.has_value()) << "the submitter did not stop after SIGINT";
  EXPECT_EQ(exit->exit_code, 0) << read_text(output);
  EXPECT_NE(read_text(output).find("cancel cancelled " + id), std::string::npos) << read_text(output);
  EXPECT_FALSE(in_squeue(id));
  EXPECT_TRUE(process_gone(std::stoi(marker["pid"])));
}

} // namespace
} // namespace warpforge::hosts
