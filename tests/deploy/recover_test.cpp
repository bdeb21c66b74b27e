// A deploy killed mid-way (SIGKILL from its own build command, in a forked child) leaves the
// champion in the project and the marker; recover() puts the original back byte for byte.

#include "stand_in_project.hpp"

#include <csignal>
#include <sys/wait.h>

#include <chrono>
#include <thread>

namespace warpforge::deploy {
namespace {

using testing::read_file;

class recover_test : public testing::stand_in_project {
protected:
  // Runs a deploy of `c` in a forked child; the child's exit status (as waitpid gives it).
  int deploy_in_child(const champion& c) {
    auto r = request(c);
    const pid_t pid = ::fork();
    if (pid == 0) {
      collecting_sink sink;
      auto report = run_deploy(r, sink);
      ::_exit(report.outcome == deploy_outcome::accepted ? 0 : 3); // not killed: the test fails
    }
    int status = 0;
    using namespace std::chrono_literals;
    for (auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(10ms))
      if (::waitpid(pid, &status, WNOHANG) == pid)
        return status;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    ADD_FAILURE() << "the deploying child did not end within 60 s";
    return status;
  }
};

TEST_F(recover_test, a_deploy_killed_mid_build_is_recovered_to_the_byte_identical_original) {
  const int status = deploy_in_child(chosen("CRASH FAST"));
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
  ASSERT_TRUE(marker_exists()) << "the killed deploy leaves its marker";
  ASSERT_NE(kernel_text().find("CRASH"), std::string::npos) << "and the champion in the file";

  collecting_sink refused_sink;
  auto second = run_deploy(request(chosen("FAST"), "deploy/transpose/2"), refused_sink);
  EXPECT_EQ(second.outcome, deploy_outcome::refused);
  EXPECT_NE(second.reason.find("run warpforge deploy --recover"), std::string::npos);

  collecting_sink sink;
  auto report = recover(target(), run_dir / "deploy/transpose/recover-1", sink);
  ASSERT_EQ(report.outcome, deploy_outcome::recovered) << report.reason;
  EXPECT_EQ(kernel_text(), testing::original_kernel);
  EXPECT_EQ(read_file(project / "binary.txt"), testing::original_kernel) << "rebuilt from the original";
  EXPECT_FALSE(marker_exists());
  ASSERT_EQ(sink.records.size(), 3u);
  EXPECT_EQ(sink.records[0].step, deploy_step::restore);
  EXPECT_EQ(sink.records[1].step, deploy_step::rebuild);
  EXPECT_EQ(sink.records[2].step, deploy_step::unlock);
  EXPECT_EQ(sink.records[0].job, "transpose");
  EXPECT_NE(read_file(report.journal).find("\"state\":\"recovered\""), std::string::npos);

  collecting_sink again_sink;
  auto again = run_deploy(request(chosen("FAST"), "deploy/transpose/3"), again_sink);
  EXPECT_EQ(again.outcome, deploy_outcome::accepted) << "the project is free again: " << again.reason;
}

TEST_F(recover_test, without_a_marker_there_is_nothing_to_recover) {
  collecting_sink sink;
  auto report = recover(target(), run_dir / "deploy/transpose/recover-1", sink);
  EXPECT_EQ(report.outcome, deploy_outcome::nothing_to_recover);
  EXPECT_NE(report.reason.find("nothing to recover"), std::string::npos);
  EXPECT_TRUE(sink.records.empty());
  EXPECT_EQ(kernel_text(), testing::original_kernel);
}

TEST_F(recover_test, a_marker_whose_backup_is_gone_fails_and_stays) {
  testing::write_file(project / ".warpforge-deploy.json",
                      "{\"job\":\"t\",\"run_dir\":\"/r\",\"work_dir\":\"/r/w\",\"file\":\"src/kernel.cuh\","
                      "\"backup\":\"" + (dir / "gone.cuh").string() + "\"}");
  collecting_sink sink;
  auto report = recover(target(), run_dir / "deploy/t/recover-1", sink);
  EXPECT_EQ(report.outcome, deploy_outcome::failed);
  EXPECT_NE(report.reason.find("cannot be read"), std::string::npos) << report.reason;
  EXPECT_TRUE(marker_exists());
  EXPECT_EQ(kernel_text(), testing::original_kernel);
}

} // namespace
} // namespace warpforge::deploy
