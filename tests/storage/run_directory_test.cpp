#include "storage/run_directory.hpp"

#include "storage/database.hpp"

#include "scratch_directory.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace warpforge::storage {
namespace {

// 2025-03-04 05:06:07 UTC
const auto fixed_time = std::chrono::system_clock::time_point{std::chrono::seconds{1741064767}};

TEST(RunDirectory, IsNamedAfterTheCampaignAndTheUtcTime) {
  EXPECT_EQ(run_directory_name("nightly", fixed_time), "nightly-20250304-050607");
}

TEST(RunDirectory, UnsafeNamesBecomeOnePathComponent) {
  EXPECT_EQ(path_component("gemm fp16/v2"), "gemm_fp16_v2");
  EXPECT_EQ(path_component("ok-name_1.2"), "ok-name_1.2");
  EXPECT_EQ(path_component(".."), "_..");
  EXPECT_EQ(path_component("."), "_.");
  EXPECT_EQ(path_component(""), "_");
}

TEST(RunDirectory, CreateLaysOutTheFolders) {
  testing::scratch_directory dir;
  auto run = run_directory::create(dir / "runs", "nightly", fixed_time);
  ASSERT_TRUE(run) << to_string(run.error());
  EXPECT_EQ(run->path(), dir / "runs" / "nightly-20250304-050607");
  EXPECT_TRUE(run->path().is_absolute());
  EXPECT_TRUE(std::filesystem::is_directory(run->logs_dir()));
  EXPECT_TRUE(std::filesystem::is_directory(run->jobs_dir()));
  EXPECT_TRUE(std::filesystem::is_directory(run->artifacts_dir()));
  EXPECT_EQ(run->database_path(), run->path() / "warpforge.db");
  EXPECT_EQ(run->summary_path(), run->path() / "summary.md");
  EXPECT_EQ(run->branch_dir("gemm fp16", 3, 2),
            run->path() / "jobs" / "gemm_fp16" / "iter-3" / "branch-2");
  EXPECT_EQ(run->relative(run->branch_dir("gemm", 1, 0) / "kernel.cu"),
            std::filesystem::path{"jobs/gemm/iter-1/branch-0/kernel.cu"});
}

TEST(RunDirectory, ASecondRunInTheSameSecondGetsASuffix) {
  testing::scratch_directory dir;
  auto first = run_directory::create(dir.path(), "nightly", fixed_time);
  auto second = run_directory::create(dir.path(), "nightly", fixed_time);
  auto third = run_directory::create(dir.path(), "nightly", fixed_time);
  ASSERT_TRUE(first && second && third);
  EXPECT_EQ(first->path().filename(), "nightly-20250304-050607");
  EXPECT_EQ(second->path().filename(), "nightly-20250304-050607-2");
  EXPECT_EQ(third->path().filename(), "nightly-20250304-050607-3");
}

TEST(RunDirectory, OpenFindsACreatedRunDirectoryWithItsDatabase) {
  testing::scratch_directory dir;
  auto run = run_directory::create(dir.path(), "nightly", fixed_time);
  ASSERT_TRUE(run);
  ASSERT_TRUE(database::open(run->database_path()));
  auto opened = run_directory::open(run->path());
  ASSERT_TRUE(opened) << to_string(opened.error());
  EXPECT_EQ(opened->path(), run->path());
}

TEST(RunDirectory, OpenNamesThePathAndWhatIsMissing) {
  testing::scratch_directory dir;
  auto run = run_directory::create(dir.path(), "nightly", fixed_time);
  ASSERT_TRUE(run);
  std::filesystem::remove(run->logs_dir());
  auto opened = run_directory::open(run->path());
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, store_error_code::not_a_run_directory);
  EXPECT_NE(opened.error().message.find(run->path().string()), std::string::npos);
  EXPECT_NE(opened.error().message.find("missing: warpforge.db, logs/"), std::string::npos)
      << opened.error().message;

  auto nowhere = run_directory::open(dir / "nowhere");
  ASSERT_FALSE(nowhere);
  EXPECT_EQ(nowhere.error().code, store_error_code::not_a_run_directory);
  EXPECT_NE(nowhere.error().message.find("nowhere is not a folder"), std::string::npos)
      << nowhere.error().message;
}

TEST(RunDirectory, CheckWritableLeavesNothingBehind) {
  testing::scratch_directory dir;
  EXPECT_TRUE(check_writable(dir.path()));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(RunDirectory, CheckWritableFailsOnAMissingFolder) {
  testing::scratch_directory dir;
  auto r = check_writable(dir / "missing");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, store_error_code::io);
  EXPECT_NE(r.error().message.find((dir / "missing").string()), std::string::npos);
}

TEST(RunDirectory, CheckWritableFailsOnAReadOnlyFolder) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "running as root, which writes into a 0500 folder regardless of its mode";
  testing::scratch_directory dir;
  auto locked = dir / "locked";
  std::filesystem::create_directory(locked);
  ASSERT_EQ(::chmod(locked.c_str(), S_IRUSR | S_IXUSR), 0);
  auto r = check_writable(locked);
  ::chmod(locked.c_str(), S_IRWXU); // so the scratch folder can be removed
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, store_error_code::io);
  EXPECT_NE(r.error().message.find("Permission denied"), std::string::npos) << r.error().message;
}

TEST(RunDirectory, IsCreatedForItsOwnerOnly) {
  testing::scratch_directory scratch;
  const auto old_mask = ::umask(022); // a usual umask: files world-readable unless told otherwise
  auto dir = run_directory::create(scratch.path(), "private", fixed_time);
  ::umask(old_mask);
  ASSERT_TRUE(dir);
  struct stat st{};
  ASSERT_EQ(::stat(dir->path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u) << "the database holds kernel sources and logs";
}

TEST(RunDirectory, AConfiguredModeIsSetExactlyWhateverTheUmask) {
  testing::scratch_directory scratch;
  const auto old_mask = ::umask(077); // a strict umask would strip the group's bits from mkdir
  auto dir = run_directory::create(scratch.path(), "shared", fixed_time, 0750);
  ::umask(old_mask);
  ASSERT_TRUE(dir);
  struct stat st{};
  ASSERT_EQ(::stat(dir->path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0750u);
}

} // namespace
} // namespace warpforge::storage
