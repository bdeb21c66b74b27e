// A deploy killed mid-way (SIGKILL from its own build command, in a forked child) leaves the
// champion in the project and the marker; recover() puts the original back byte for byte. And
// by the marker's owner and stage (hand-written markers): recover() refuses while the owner
// runs, only unlocks when the kill came before the first write, rebuilds without the backup when
// the file already holds the original, and keeps the marker when the backup is not the original.

#include "stand_in_project.hpp"

#include "deploy/deploy_marker.hpp"
#include "gpu/compile/compile_cache.hpp"

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

  // The marker a deploy of FAST owned by `owner` leaves at `stage`; its backup holds `backup`
  // (none when nullopt).
  deploy_marker leave_marker(marker_stage stage, process_identity owner,
                             std::optional<std::string> backup = std::string{testing::original_kernel}) {
    const auto work = run_dir / "deploy/transpose/1";
    deploy_marker m{"transpose", run_dir, work, "src/kernel.cuh", work / "backup/src/kernel.cuh", "iter-2/branch-1",
                    std::move(owner), 1767225600.0, stage,
                    gpu::cache_detail::sha256_hex(testing::original_kernel)};
    if (backup)
      testing::write_file(m.backup, *backup);
    testing::write_file(project / ".warpforge-deploy.json", marker_json(m));
    return m;
  }

  // This process with another start time: its pid, given since to another process.
  static process_identity reused_pid() {
    auto owner = this_process();
    owner.start_ticks += 1;
    return owner;
  }

  static std::vector<std::string> steps_of(const collecting_sink& sink) {
    std::vector<std::string> out;
    for (const auto& r : sink.records)
      out.push_back(std::string{to_string(r.step)} + ":" + std::string{to_string(r.status)});
    return out;
  }

  static constexpr std::string_view champion_kernel =
    "// the project's kernel header\n// warpforge:begin k\n#define SPEED FAST\n// warpforge:end k\n";
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

TEST_F(recover_test, while_the_deploys_process_runs_recover_refuses_naming_it_and_changes_nothing) {
  testing::write_file(project / "src/kernel.cuh", std::string{champion_kernel});
  leave_marker(marker_stage::written, this_process()); // this test is the live deploy
  collecting_sink sink;
  auto report = recover(target(), run_dir / "deploy/transpose/recover-1", sink);
  EXPECT_EQ(report.outcome, deploy_outcome::refused);
  const std::string pid = std::to_string(::getpid());
  EXPECT_NE(report.reason.find("a deploy by pid " + pid + " started at 2026-01-01T00:00:00Z is running; nothing was changed"),
            std::string::npos)
    << report.reason;
  EXPECT_EQ(steps_of(sink), std::vector<std::string>{"restore:refused"});
  EXPECT_EQ(kernel_text(), champion_kernel) << "the live deploy's text stays";
  EXPECT_TRUE(marker_exists());
  EXPECT_FALSE(std::filesystem::exists(project / "binary.txt")) << "nothing was built";

  collecting_sink second_sink;
  auto second = run_deploy(request(chosen("SLOW"), "deploy/transpose/2"), second_sink);
  EXPECT_EQ(second.outcome, deploy_outcome::refused);
  EXPECT_NE(second.reason.find("is running (pid " + pid), std::string::npos) << second.reason;
  EXPECT_EQ(second.reason.find("--recover"), std::string::npos) << "not while it runs: " << second.reason;

  leave_marker(marker_stage::written, reused_pid()); // the same pid, another process: the deploy is dead
  collecting_sink later;
  auto recovered = recover(target(), run_dir / "deploy/transpose/recover-2", later);
  ASSERT_EQ(recovered.outcome, deploy_outcome::recovered) << recovered.reason;
  EXPECT_EQ(kernel_text(), testing::original_kernel);
}

TEST_F(recover_test, a_marker_from_another_host_is_refused_naming_that_host) {
  auto owner = this_process();
  owner.host = this_host() + "-elsewhere";
  leave_marker(marker_stage::written, owner);
  collecting_sink sink;
  auto report = recover(target(), run_dir / "deploy/transpose/recover-1", sink);
  EXPECT_EQ(report.outcome, deploy_outcome::refused);
  EXPECT_NE(report.reason.find("--recover on " + owner.host), std::string::npos) << report.reason;
  EXPECT_NE(report.reason.find("nothing was changed"), std::string::npos) << report.reason;
  EXPECT_TRUE(marker_exists());
}

TEST_F(recover_test, killed_before_its_backup_the_deploy_is_only_unlocked_and_its_row_closed) {
  const auto m = leave_marker(marker_stage::locked, reused_pid(), std::nullopt); // no backup was made
  collecting_sink sink;
  auto report = recover(target(), run_dir / "deploy/transpose/recover-1", sink);
  ASSERT_EQ(report.outcome, deploy_outcome::recovered) << report.reason;
  EXPECT_NE(report.reason.find("killed before it wrote src/kernel.cuh"), std::string::npos) << report.reason;
  EXPECT_EQ(steps_of(sink), (std::vector<std::string>{"restore:skipped", "unlock:passed"}));
  EXPECT_NE(sink.records[0].detail.find("still holds the original"), std::string::npos) << sink.records[0].detail;
  EXPECT_EQ(kernel_text(), testing::original_kernel);
  EXPECT_FALSE(std::filesystem::exists(project / "binary.txt")) << "the original was never replaced: no build";
  EXPECT_FALSE(marker_exists());
  EXPECT_EQ(report.interrupted_work_dir, m.work_dir);
  EXPECT_NE(report.interrupted_reason.find("stage locked"), std::string::npos) << report.interrupted_reason;
}

TEST_F(recover_test, a_file_a_person_changed_before_the_first_write_is_left_as_they_made_it) {
  leave_marker(marker_stage::backed_up, reused_pid());
  const std::string edited = std::string{testing::original_kernel} + "// edited by hand meanwhile\n";
  testing::write_file(project / "src/kernel.cuh", edited);
  collecting_sink sink;
  auto report = recover(target(), run_dir / "deploy/transpose/recover-1", sink);
  ASSERT_EQ(report.outcome, deploy_outcome::recovered) << report.reason;
  EXPECT_NE(sink.records[0].detail.find("changed since the deploy locked it, not by the deploy"), std::string::npos)
    << sink.records[0].detail;
  EXPECT_EQ(kernel_text(), edited) << "only what the deploy wrote is undone";
  EXPECT_FALSE(marker_exists());
}

TEST_F(recover_test, after_the_write_a_file_already_holding_the_original_is_rebuilt_without_a_backup) {
  leave_marker(marker_stage::written, reused_pid(), std::nullopt); // killed in the roll-back's rebuild, say
  testing::write_file(project / "binary.txt", std::string{champion_kernel}); // the champion's build
  collecting_sink sink;
  auto report = recover(target(), run_dir / "deploy/transpose/recover-1", sink);
  ASSERT_EQ(report.outcome, deploy_outcome::recovered) << report.reason;
  EXPECT_EQ(steps_of(sink), (std::vector<std::string>{"restore:skipped", "rebuild:passed", "unlock:passed"}));
  EXPECT_EQ(testing::read_file(project / "binary.txt"), testing::original_kernel) << "rebuilt from the original";
  EXPECT_FALSE(marker_exists());
}

TEST_F(recover_test, after_the_write_a_backup_that_is_not_the_original_fails_and_the_marker_stays) {
  testing::write_file(project / "src/kernel.cuh", std::string{champion_kernel});
  leave_marker(marker_stage::written, reused_pid(), std::string{"// some other file\n"});
  collecting_sink sink;
  auto report = recover(target(), run_dir / "deploy/transpose/recover-1", sink);
  EXPECT_EQ(report.outcome, deploy_outcome::failed);
  EXPECT_NE(report.reason.find("is not the original the deploy locked"), std::string::npos) << report.reason;
  EXPECT_EQ(kernel_text(), champion_kernel) << "nothing restored from a wrong backup";
  EXPECT_TRUE(marker_exists());
}

} // namespace
} // namespace warpforge::deploy
