// The sbatch script of a campaign's Slurm hosts (pipeline/hosts/sbatch_script.hpp): every setting
// of the spec as an #SBATCH line, the extra options last, and the host's command line as the shell
// reads it back.
#include "pipeline/hosts/sbatch_script.hpp"

#include "gpu/runner/child_process.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <unistd.h>

namespace warpforge::hosts {
namespace {

namespace fs = std::filesystem;

config::slurm_spec two_nodes() {
  config::slurm_spec spec;
  spec.partition = "gpu";
  spec.nodes = 2;
  spec.gpus_per_node = 4;
  spec.time_limit = "8:00:00";
  spec.time_limit_s = 8 * 3600;
  spec.sbatch_options = {"--account=proj42", "--output=/scratch/wf-%j.out"};
  return spec;
}

// Built member by member: GCC 12 warns of a brace-initialised nested aggregate (-Wmaybe-uninitialized).
host_command make_command(std::string host, std::uint16_t port, std::string credential) {
  host_command out;
  out.warpforge = "/opt/warpforge/bin/warpforge";
  out.coordinator.host = std::move(host);
  out.coordinator.port = port;
  out.credential = std::move(credential);
  return out;
}

const host_command command = make_command("head1", 4242, "/home/me/runs/r1/credential");

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

TEST(HostCommand, TheHostIsStartedWithTheCoordinatorAndTheCredential) {
  EXPECT_EQ(host_arguments(command), (std::vector<std::string>{"host", "--coordinator", "head1:4242", "--credential",
                                                               "/home/me/runs/r1/credential"}));
  EXPECT_EQ(host_arguments(make_command("fd00::1", 9, "/c"))[2], "[fd00::1]:9");
}

TEST(SbatchScript, EverySettingOfTheSpecIsAnSbatchLineAndTheExtraOptionsComeLast) {
  const auto lines = lines_of(sbatch_script(two_nodes(), command, "/home/me/runs/nightly-20261127-140000"));
  std::vector<std::string> directives;
  for (const auto& line : lines)
    if (line.starts_with("#SBATCH "))
      directives.push_back(line.substr(8));
  EXPECT_EQ(directives, (std::vector<std::string>{
                          "--job-name=warpforge-hosts-nightly-20261127-140000",
                          "--nodes=2",
                          "--ntasks-per-node=1",
                          "--gres=gpu:4",
                          "--time=8:00:00",
                          "--partition=gpu",
                          "--output=/home/me/runs/nightly-20261127-140000/hosts/slurm-%j.out",
                          "--account=proj42",
                          "--output=/scratch/wf-%j.out",
                        }));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "#!/bin/sh");
  EXPECT_EQ(lines.back(), "exec srun --ntasks-per-node=1 --gres=gpu:4 --kill-on-bad-exit=0 "
                          "'/opt/warpforge/bin/warpforge' 'host' '--coordinator' 'head1:4242' "
                          "'--credential' '/home/me/runs/r1/credential'");
}

TEST(SbatchScript, WithoutAPartitionNoneIsAsked) {
  auto spec = two_nodes();
  spec.partition.clear();
  EXPECT_EQ(sbatch_script(spec, command, "/r").find("--partition"), std::string::npos);
}

TEST(SbatchScript, ShellQuotingIsReadBackExactlyByTheShell) {
  const std::string tricky = "/opt/my warp'forge/$HOME/`id`/\"x\"\\n;|&";
  const fs::path out = fs::temp_directory_path() / ("wf-quote-" + std::to_string(::getpid()) + ".txt");
  fs::remove(out);
  auto shell = gpu::child_process::spawn(
    {.executable = "/bin/sh", .arguments = {"-c", "printf '%s' " + shell_quoted(tricky)}, .environment = {}, .output_file = out});
  ASSERT_TRUE(shell.has_value());
  auto exit = shell->wait_for_exit(std::chrono::seconds(10));
  ASSERT_TRUE(exit && exit->exit_code == 0);
  std::ifstream in(out);
  std::stringstream read;
  read << in.rdbuf();
  EXPECT_EQ(read.str(), tricky);
  fs::remove(out);
}

TEST(SbatchScript, AJobNameKeepsOnlyPlainCharactersOfTheRunsName) {
  EXPECT_EQ(slurm_job_name("/runs/nightly-20261127-140000"), "warpforge-hosts-nightly-20261127-140000");
  EXPECT_EQ(slurm_job_name("/runs/a b$c/"), "warpforge-hosts-a_b_c");
}

TEST(SbatchScript, ARunDirectoryAnSbatchLineCannotCarryIsNamed) {
  EXPECT_EQ(plain_path_problem("/home/me/runs/n-1_2.3/x+y,z:w=v@u"), std::nullopt);
  for (const std::string path : {"/home/me/my runs", "/runs/100%", "/runs/a\"b", "/runs/a\nb", "/runs/$x"}) {
    auto why = plain_path_problem(path);
    ASSERT_TRUE(why.has_value()) << path;
    EXPECT_NE(why->find("holds"), std::string::npos) << *why;
  }
}

} // namespace
} // namespace warpforge::hosts
