#include "gpu/runner/gpu_lock.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sys/stat.h>

namespace warpforge::gpu {
namespace {

using namespace std::chrono_literals;
constexpr auto uuid = "GPU-9d45c136-5c40-82ea-a68e-b641348aba0b";

class GpuLock : public ::testing::Test {
protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path()
                              / ("wf-locks-" + std::to_string(::getpid()) + "-"
                                 + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(GpuLock, ASecondHolderIsRefusedWithTheFirstHoldersNameUntilItReleases) {
  {
    auto first = gpu_lock::acquire(uuid, "warpforge run nightly.toml", lock_policy::fail, 0ms, dir);
    ASSERT_TRUE(first) << first.error().to_string();
    auto second = gpu_lock::acquire(uuid, "warpforge bench", lock_policy::fail, 0ms, dir);
    ASSERT_FALSE(second);
    EXPECT_EQ(second.error().kind, gpu_lock_error_kind::busy);
    EXPECT_NE(second.error().detail.find("pid " + std::to_string(::getpid()) + " (warpforge run nightly.toml)"),
              std::string::npos)
      << second.error().detail;
    auto waited = gpu_lock::acquire(uuid, "warpforge bench", lock_policy::wait, 100ms, dir);
    ASSERT_FALSE(waited);
    EXPECT_NE(waited.error().detail.find("waited 100 ms"), std::string::npos) << waited.error().detail;
  }
  auto after_release = gpu_lock::acquire(uuid, "warpforge bench", lock_policy::fail, 0ms, dir);
  EXPECT_TRUE(after_release);
}

TEST_F(GpuLock, DifferentGpusDoNotBlockEachOther) {
  auto a = gpu_lock::acquire(uuid, "a", lock_policy::fail, 0ms, dir);
  auto b = gpu_lock::acquire("GPU-00000000-0000-0000-0000-000000000001", "b", lock_policy::fail, 0ms, dir);
  EXPECT_TRUE(a);
  EXPECT_TRUE(b);
}

// The kernel drops a flock with the process: a crashed warpforge never leaves a GPU locked.
TEST_F(GpuLock, ALockDiesWithItsProcessAndAWaiterThenGetsIt) {
  std::filesystem::create_directories(dir);
  const auto file = dir / (std::string{"gpu-"} + uuid + ".lock");
  int locked[2];
  int release[2];
  ASSERT_EQ(::pipe(locked), 0);
  ASSERT_EQ(::pipe(release), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Only async-signal-safe calls in the child.
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT, 0666);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0)
      ::_exit(1);
    char byte = 'L';
    (void)::write(locked[1], &byte, 1);
    (void)::read(release[0], &byte, 1);
    ::_exit(0); // dies holding the lock
  }
  char byte = 0;
  ASSERT_EQ(::read(locked[0], &byte, 1), 1);
  auto refused = gpu_lock::acquire(uuid, "parent", lock_policy::fail, 0ms, dir);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, gpu_lock_error_kind::busy);

  ASSERT_EQ(::write(release[1], &byte, 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  auto taken = gpu_lock::acquire(uuid, "parent", lock_policy::wait, 10s, dir);
  EXPECT_TRUE(taken) << taken.error().to_string();
  for (int fd : {locked[0], locked[1], release[0], release[1]})
    ::close(fd);
}

// Another user of a shared GPU host plants a link where the lock file goes: warpforge must
// neither follow it nor write through it.
TEST_F(GpuLock, ASymbolicLinkInPlaceOfTheLockFileIsRefusedAndItsTargetUntouched) {
  std::filesystem::create_directories(dir);
  const auto victim = dir / "victim.txt";
  { std::ofstream{victim} << "precious\n"; }
  std::filesystem::create_symlink(victim, dir / (std::string{"gpu-"} + uuid + ".lock"));
  auto lock = gpu_lock::acquire(uuid, "warpforge run", lock_policy::fail, 0ms, dir);
  ASSERT_FALSE(lock);
  EXPECT_EQ(lock.error().kind, gpu_lock_error_kind::io);
  EXPECT_NE(lock.error().detail.find("symbolic link"), std::string::npos) << lock.error().detail;
  std::ifstream in{victim};
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  EXPECT_EQ(text, "precious\n");
}

TEST_F(GpuLock, AHardLinkInPlaceOfTheLockFileIsRefusedAndItsTargetUntouched) {
  std::filesystem::create_directories(dir);
  const auto victim = dir / "victim.txt";
  { std::ofstream{victim} << "precious\n"; }
  std::filesystem::create_hard_link(victim, dir / (std::string{"gpu-"} + uuid + ".lock"));
  auto lock = gpu_lock::acquire(uuid, "warpforge run", lock_policy::fail, 0ms, dir);
  ASSERT_FALSE(lock);
  EXPECT_NE(lock.error().detail.find("hard link"), std::string::npos) << lock.error().detail;
  std::ifstream in{victim};
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  EXPECT_EQ(text, "precious\n");
}

TEST_F(GpuLock, AFifoInPlaceOfTheLockFileIsRefusedWithoutHanging) {
  std::filesystem::create_directories(dir);
  ASSERT_EQ(::mkfifo((dir / (std::string{"gpu-"} + uuid + ".lock")).c_str(), 0600), 0);
  auto lock = gpu_lock::acquire(uuid, "warpforge run", lock_policy::fail, 0ms, dir);
  ASSERT_FALSE(lock);
  EXPECT_NE(lock.error().detail.find("not a regular file"), std::string::npos) << lock.error().detail;
}

TEST_F(GpuLock, ALongerHolderBeforeAShorterOneLeavesOnlyTheShorterOnesName) {
  { auto first = gpu_lock::acquire(uuid, std::string(200, 'x'), lock_policy::fail, 0ms, dir); ASSERT_TRUE(first); }
  auto second = gpu_lock::acquire(uuid, "short", lock_policy::fail, 0ms, dir);
  ASSERT_TRUE(second);
  auto third = gpu_lock::acquire(uuid, "other", lock_policy::fail, 0ms, dir);
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error().detail.find("xxx"), std::string::npos) << third.error().detail;
  EXPECT_NE(third.error().detail.find("(short)"), std::string::npos) << third.error().detail;
}

TEST_F(GpuLock, AnUnusableUuidIsRefusedBeforeTouchingTheDisk) {
  auto bad = gpu_lock::acquire("../etc/passwd", "x", lock_policy::fail, 0ms, dir);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, gpu_lock_error_kind::invalid);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(GpuLockErrorKind, EveryValueRoundTripsThroughItsName) {
  for (auto kind : {gpu_lock_error_kind::busy, gpu_lock_error_kind::invalid, gpu_lock_error_kind::io})
    EXPECT_EQ(gpu_lock_error_kind_from_string(to_string(kind)), kind);
  EXPECT_FALSE(gpu_lock_error_kind_from_string("stuck").has_value());
}

} // namespace
} // namespace warpforge::gpu
