// The deploy marker's owner (deploy_owner.hpp) and the marker's text (deploy_marker.hpp): a live
// process is alive, an ended one (reaped or a zombie) dead, a pid whose start time differs is
// another process, another boot ended every process, another host cannot be checked; the marker
// keeps every field through its JSON, reads an old marker without the owner fields, and its
// refusal says "running" or "--recover" as the owner stands.

#include "deploy/deploy_marker.hpp"
#include "deploy/deploy_owner.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <set>

namespace warpforge::deploy {
namespace {

TEST(deploy_owner, every_liveness_and_stage_has_a_distinct_name_and_stages_read_back) {
  std::set<std::string_view> names;
  for (auto liveness : all_owner_livenesses)
    names.insert(to_string(liveness));
  EXPECT_EQ(names.size(), std::size(all_owner_livenesses));
  for (auto stage : all_marker_stages)
    EXPECT_EQ(marker_stage_from_string(to_string(stage)), stage);
  EXPECT_FALSE(marker_stage_from_string("half_written"));
}

TEST(deploy_owner, this_process_is_alive_with_its_start_time_boot_and_host) {
  const auto me = this_process();
  EXPECT_EQ(me.pid, ::getpid());
  EXPECT_GT(me.start_ticks, 0u);
  EXPECT_EQ(start_ticks_of(me.pid), me.start_ticks);
  EXPECT_FALSE(me.boot_id.empty());
  EXPECT_EQ(me.host, this_host());
  EXPECT_EQ(liveness_of(me), owner_liveness::alive);
}

TEST(deploy_owner, a_pid_now_held_by_another_process_or_from_another_boot_is_dead) {
  auto reused = this_process();
  reused.start_ticks += 1; // the same pid, started at another time: not the deploy that locked
  EXPECT_EQ(liveness_of(reused), owner_liveness::dead);
  auto rebooted = this_process();
  rebooted.boot_id = "00000000-0000-0000-0000-000000000000";
  EXPECT_EQ(liveness_of(rebooted), owner_liveness::dead);
}

TEST(deploy_owner, another_host_cannot_be_checked_from_here) {
  auto remote = this_process();
  remote.host = this_host() + "-elsewhere";
  EXPECT_EQ(liveness_of(remote), owner_liveness::elsewhere);
}

TEST(deploy_owner, a_process_that_ended_is_dead_as_a_zombie_and_once_reaped) {
  const pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  ASSERT_GT(child, 0);
  process_identity owner = this_process();
  owner.pid = child;
  owner.start_ticks = 0; // as an old marker without a start time: only the pid is checked
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0); // ended, not reaped
  EXPECT_EQ(liveness_of(owner), owner_liveness::dead) << "a zombie is no deploy";
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  EXPECT_EQ(liveness_of(owner), owner_liveness::dead);
  owner.pid = 0;
  EXPECT_EQ(liveness_of(owner), owner_liveness::dead) << "a marker without a pid";
}

deploy_marker sample_marker() {
  return {"transpose", "/runs/r1", "/runs/r1/deploy/transpose/1", "src/k.cuh", "/runs/r1/deploy/transpose/1/backup/src/k.cuh",
          "iter-3/branch-2", this_process(), 1767225600.5, marker_stage::backed_up, std::string(64, 'a')};
}

TEST(deploy_marker, every_field_survives_its_json) {
  const auto marker = sample_marker();
  auto back = parse_marker(marker_json(marker), "m.json");
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, marker);
  auto bad_stage = marker_json(marker);
  bad_stage.replace(bad_stage.find("backed_up"), 9, "halfway");
  auto refused = parse_marker(bad_stage, "m.json");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("m.json: stage \"halfway\""), std::string::npos) << refused.error();
}

TEST(deploy_marker, an_old_marker_without_owner_or_stage_reads_as_written_with_its_pid_only) {
  auto old = parse_marker(R"({"job":"t","run_dir":"/r","work_dir":"/r/w","file":"k.cuh","backup":"/r/b","pid":7})", "m");
  ASSERT_TRUE(old) << old.error();
  EXPECT_EQ(old->stage, marker_stage::written) << "restore from the backup, as before stages";
  EXPECT_EQ(old->owner.pid, 7);
  EXPECT_EQ(old->owner.start_ticks, 0u);
  EXPECT_TRUE(old->owner.host.empty());
  EXPECT_TRUE(old->original_sha256.empty());
}

TEST(deploy_marker, the_refusal_says_running_while_the_owner_lives_and_recover_only_once_it_is_dead) {
  const auto marker = sample_marker();
  const auto pid = std::to_string(marker.owner.pid);
  const auto alive = held_message(marker, "/app", owner_liveness::alive);
  EXPECT_NE(alive.find("is running (pid " + pid + " started at 2026-01-01T00:00:00Z)"), std::string::npos) << alive;
  EXPECT_EQ(alive.find("--recover"), std::string::npos) << alive;
  const auto dead = held_message(marker, "/app", owner_liveness::dead);
  EXPECT_NE(dead.find("an unrecovered deploy of transpose from /runs/r1 holds /app"), std::string::npos) << dead;
  EXPECT_NE(dead.find("run warpforge deploy --recover"), std::string::npos) << dead;
  auto remote = marker;
  remote.owner.host = "gpu-07";
  const auto elsewhere = held_message(remote, "/app", owner_liveness::elsewhere);
  EXPECT_NE(elsewhere.find("on host gpu-07"), std::string::npos) << elsewhere;
  EXPECT_NE(elsewhere.find("--recover on gpu-07"), std::string::npos) << elsewhere;
}

} // namespace
} // namespace warpforge::deploy
