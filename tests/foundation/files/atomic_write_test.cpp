#include "foundation/files/atomic_write.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <unistd.h>

namespace warpforge::files {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in{path};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(WriteFileAtomically, ReplacesTheFileWholeCreatingItsFolderAndLeavesNothingElse) {
  const auto dir = fs::temp_directory_path() / ("wf-atomic-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto path = dir / "sub" / "report.md";
  ASSERT_TRUE(write_file_atomically(path, "first"));
  ASSERT_TRUE(write_file_atomically(path, "second"));
  EXPECT_EQ(read(path), "second");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator{dir / "sub"})
    ++entries;
  EXPECT_EQ(entries, 1u) << "no temporary file is left beside it";
  fs::remove_all(dir);
}

TEST(WriteFileAtomically, NamesTheStepAndThePathItCouldNotWrite) {
  const auto dir = fs::temp_directory_path() / ("wf-atomic-bad-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream{dir / "a_file"} << "x";
  auto written = write_file_atomically(dir / "a_file" / "x.json", "{}");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().rfind("create " + (dir / "a_file").string(), 0), 0u) << written.error();
  fs::remove_all(dir);
}

} // namespace
} // namespace warpforge::files
