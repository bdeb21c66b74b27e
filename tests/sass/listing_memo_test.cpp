#include "sass/listing_memo.hpp"

#include "sass_test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace warpforge::sass {
namespace {

using test::temp_dir;

// The key names the machine code, the tool and the format it is run for: same bytes, same key;
// other bytes, another tool (another toolkit's nvdisasm, or the same file replaced: its time or
// its size changed) or the other format, another; a tool that is not there, none.
TEST(ListingMemo, TheKeyIsTheCubinsContentTheToolAndItsFormat) {
  const temp_dir dir;
  const auto tool = dir.write("nvdisasm", "#!/bin/sh\n", true);
  const auto other_tool = dir.write("other/nvdisasm", "#!/bin/sh\n", true);
  const auto key = listing_memo::key(tool, "nvdisasm", "bytes");
  ASSERT_TRUE(key);
  EXPECT_EQ(listing_memo::key(tool, "nvdisasm", "bytes"), key);
  EXPECT_NE(listing_memo::key(tool, "nvdisasm", "bytez"), key);
  EXPECT_NE(listing_memo::key(tool, "cuobjdump", "bytes"), key);
  EXPECT_NE(listing_memo::key(other_tool, "nvdisasm", "bytes"), key) << "same size and content, another path";
  const auto an_hour_ago = std::filesystem::last_write_time(tool) - std::chrono::hours{1};
  std::filesystem::last_write_time(tool, an_hour_ago);
  const auto older = listing_memo::key(tool, "nvdisasm", "bytes");
  EXPECT_NE(older, key) << "the same path and size, another time";
  dir.write("nvdisasm", "#!/bin/sh\n# a longer tool\n", true);
  std::filesystem::last_write_time(tool, an_hour_ago);
  EXPECT_NE(listing_memo::key(tool, "nvdisasm", "bytes"), older) << "the same path and time, another size";
  EXPECT_FALSE(listing_memo::key(dir.path() / "absent", "nvdisasm", "bytes"));
}

// What it keeps stays within its budget, the oldest going first; a listing larger than the whole
// budget is not kept.
TEST(ListingMemo, KeepsWithinItsBudgetOldestFirst) {
  listing_memo memo{10};
  memo.keep("a", "1234");
  memo.keep("b", "5678");
  EXPECT_EQ(memo.find("a"), "1234");
  EXPECT_EQ(memo.bytes(), 8u);
  memo.keep("c", "90");
  EXPECT_EQ(memo.bytes(), 10u);
  memo.keep("d", "x");
  EXPECT_FALSE(memo.find("a")) << "the oldest went to make room";
  EXPECT_EQ(memo.find("b"), "5678");
  EXPECT_EQ(memo.find("d"), "x");
  EXPECT_EQ(memo.bytes(), 7u);
  memo.keep("huge", "more than ten bytes");
  EXPECT_FALSE(memo.find("huge"));
  EXPECT_EQ(memo.entries(), 3u);
}

// A listing key (a stand-in tool, some bytes) and where a memo keeping listings in <dir>/sass puts it.
std::string some_key(const temp_dir& dir) {
  auto key = listing_memo::key(dir.write("nvdisasm", "#!/bin/sh\n", true), "nvdisasm", "bytes");
  EXPECT_TRUE(key);
  return key.value_or("00");
}

std::filesystem::path kept_file(const temp_dir& dir, const std::string& key) {
  return dir.path() / "sass" / key.substr(0, 2) / (key + ".txt");
}

// A memo keeping its listings on disk finds what another memo (an earlier process) kept in the
// same folder; one without a folder does not. Keeping a key again replaces its listing, on disk
// and in memory.
TEST(ListingMemo, AListingKeptOnDiskIsFoundByALaterMemoAndKeepingAgainReplacesIt) {
  const temp_dir dir;
  const auto key = some_key(dir);
  listing_memo earlier;
  earlier.keep_on_disk(dir.path() / "sass");
  earlier.keep(key, "the listing");
  EXPECT_TRUE(std::filesystem::is_regular_file(kept_file(dir, key)));
  listing_memo later;
  EXPECT_FALSE(later.find(key)) << "no folder: memory only";
  later.keep_on_disk(dir.path() / "sass");
  EXPECT_EQ(later.find(key), "the listing");
  later.keep(key, "a better listing");
  EXPECT_EQ(later.find(key), "a better listing");
  EXPECT_EQ(later.entries(), 1u);
  listing_memo third;
  third.keep_on_disk(dir.path() / "sass");
  EXPECT_EQ(third.find(key), "a better listing");
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator{dir.path() / "sass"})
    files += entry.is_regular_file();
  EXPECT_EQ(files, 1u) << "no partial file is left beside the listing";
}

// A kept file is used only when it matches its first line (the listing's length and SHA-256): one
// changed or cut short after it was written is not found.
TEST(ListingMemo, AKeptFileThatNoLongerMatchesItsLengthAndDigestIsNotUsed) {
  const temp_dir dir;
  const auto key = some_key(dir);
  listing_memo earlier;
  earlier.keep_on_disk(dir.path() / "sass");
  earlier.keep(key, "the listing, whole");
  const auto file = kept_file(dir, key);
  std::string text;
  {
    std::ifstream in{file};
    std::getline(in, text, '\0');
  }
  ASSERT_EQ(text.rfind("warpforge-listing ", 0), 0u) << text;
  for (const auto& changed : {text.substr(0, text.size() - 3), text.substr(0, text.size() - 6) + "WHOLE", std::string{}}) {
    std::ofstream{file, std::ios::trunc} << changed;
    listing_memo later;
    later.keep_on_disk(dir.path() / "sass");
    EXPECT_FALSE(later.find(key)) << "file: '" << changed << "'";
  }
}

// A folder that cannot be written keeps the listing in memory only.
TEST(ListingMemo, AFolderThatCannotBeWrittenKeepsTheListingInMemory) {
  const temp_dir dir;
  const auto not_a_folder = dir.write("file", "a file where the folder would be");
  const auto key = some_key(dir);
  listing_memo memo;
  memo.keep_on_disk(not_a_folder / "sass");
  memo.keep(key, "the listing");
  EXPECT_EQ(memo.find(key), "the listing");
}

} // namespace
} // namespace warpforge::sass
