// The run directory's owner claim with real files and real processes: a second claim is refused
// while the first holder lives, and a holder that dies (SIGKILL) leaves the directory free.

#include "storage/run_owner.hpp"

#include "scratch_directory.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

namespace warpforge::storage {
namespace {

using namespace std::chrono_literals;

class RunOwner : public ::testing::Test {
protected:
  testing::scratch_directory scratch;
  run_directory dir = run_directory::create(scratch.path(), "nightly", std::chrono::system_clock::now()).value();
};

TEST_F(RunOwner, ASecondClaimIsRefusedNamingTheHolderUntilTheFirstIsReleased) {
  EXPECT_FALSE(run_owner::holder(dir)) << "never claimed";
  {
    auto first = run_owner::claim(dir, "warpforge run nightly.toml");
    ASSERT_TRUE(first) << to_string(first.error());
    auto second = run_owner::claim(dir, "warpforge resume");
    ASSERT_FALSE(second);
    EXPECT_EQ(second.error().code, store_error_code::busy);
    EXPECT_NE(second.error().message.find("campaign is running (pid " + std::to_string(::getpid()) +
                                          ": warpforge run nightly.toml)"),
              std::string::npos)
      << second.error().message;
    auto holder = run_owner::holder(dir);
    ASSERT_TRUE(holder);
    EXPECT_EQ(holder->pid, ::getpid());
    EXPECT_EQ(holder->command, "warpforge run nightly.toml");
  }
  EXPECT_FALSE(run_owner::holder(dir)) << "released with its owner";
  auto again = run_owner::claim(dir, "warpforge resume");
  ASSERT_TRUE(again);
  EXPECT_EQ(run_owner::holder(dir)->command, "warpforge resume") << "a shorter record replaces a longer one";
}

TEST_F(RunOwner, AHolderKilledWithSigkillLeavesTheDirectoryFree) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto owner = run_owner::claim(dir, "a child");
    (void)::write(ready[1], owner ? "y" : "n", 1);
    ::pause();
    ::_exit(0);
  }
  char answer = 0;
  ASSERT_EQ(::read(ready[0], &answer, 1), 1);
  ASSERT_EQ(answer, 'y');
  auto while_alive = run_owner::claim(dir, "warpforge resume");
  ASSERT_FALSE(while_alive);
  EXPECT_NE(while_alive.error().message.find("pid " + std::to_string(child)), std::string::npos);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_FALSE(run_owner::holder(dir));
  EXPECT_TRUE(run_owner::claim(dir, "warpforge resume"));
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST_F(RunOwner, ALinkPlantedAsTheLockFileIsRefusedAndItsTargetUntouched) {
  const auto victim = scratch.path() / "victim.txt";
  { std::ofstream{victim} << "precious\n"; }
  std::filesystem::create_symlink(victim, dir.path() / run_owner::lock_file);
  auto owner = run_owner::claim(dir, "warpforge run");
  ASSERT_FALSE(owner);
  EXPECT_EQ(owner.error().code, store_error_code::cannot_open);
  EXPECT_NE(owner.error().message.find("symbolic link"), std::string::npos) << owner.error().message;
  std::ifstream in{victim};
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>{in}, {}), "precious\n");
}

} // namespace
} // namespace warpforge::storage
