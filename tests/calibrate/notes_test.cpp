// notes: defer / annotate / retry / backlog, their JSON round trip, the atomic save, and load of a
// missing or broken file.
#include "calibrate/notes.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

namespace warpforge::calibrate {
namespace {

class CalibrateNotesFiles : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("calibrate_notes_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST(CalibrateNotes, DeferKeepsWhyAndWhatNextAndMovesAnEarlierDeferralToTheTrail) {
  notes book;
  book.defer("l2_size", "knee blurred", "one SM per partition");
  ASSERT_TRUE(book.is_deferred("l2_size"));
  book.defer("l2_size", "still blurred", "ld.global.cg with a larger stride");
  const auto* entry = book.find("l2_size");
  ASSERT_NE(entry, nullptr);
  ASSERT_TRUE(entry->deferred.has_value());
  EXPECT_EQ(entry->deferred->reason, "still blurred");
  EXPECT_EQ(entry->deferred->next_idea, "ld.global.cg with a larger stride");
  EXPECT_EQ(entry->deferred->time_utc.size(), 20u); // 2026-11-05T10:04:00Z
  EXPECT_EQ(entry->deferred->time_utc.back(), 'Z');
  ASSERT_EQ(entry->past_deferrals.size(), 1u);
  EXPECT_EQ(entry->past_deferrals[0].reason, "knee blurred");
  EXPECT_FALSE(book.is_deferred("l1_size"));
  EXPECT_EQ(book.find("l1_size"), nullptr);
}

TEST(CalibrateNotes, RetryEndsADeferralAndDeferringAgainCancelsTheRetry) {
  notes book;
  book.defer("a", "why", "next");
  book.mark_retry("a");
  EXPECT_FALSE(book.is_deferred("a"));
  EXPECT_TRUE(book.retry_requested("a"));
  EXPECT_EQ(book.find("a")->past_deferrals.size(), 1u);
  book.clear_retry("a");
  EXPECT_FALSE(book.retry_requested("a"));
  book.mark_retry("a");
  book.defer("a", "again", "");
  EXPECT_FALSE(book.retry_requested("a"));
  EXPECT_TRUE(book.is_deferred("a"));
  book.clear_retry("never_noted"); // nothing to clear: no entry is made
  EXPECT_EQ(book.find("never_noted"), nullptr);
}

TEST(CalibrateNotes, AnnotationsAndBacklogAccumulateWithoutChangingTheState) {
  notes book;
  book.annotate("smem_banks", "stride 32 gives the 32-way conflict");
  book.annotate("smem_banks", "matches the programming guide");
  book.add_backlog("smem_banks", "try 64-bit words");
  const auto* entry = book.find("smem_banks");
  ASSERT_NE(entry, nullptr);
  EXPECT_FALSE(entry->deferred.has_value());
  EXPECT_FALSE(entry->retry);
  ASSERT_EQ(entry->annotations.size(), 2u);
  EXPECT_EQ(entry->annotations[1].text, "matches the programming guide");
  EXPECT_EQ(entry->backlog, std::vector<std::string>{"try 64-bit words"});
}

TEST(CalibrateNotes, DescribeGivesTheWholeTrailAsLines) {
  notes book;
  book.defer("x", "first", "idea one");
  book.defer("x", "second", "idea two");
  book.annotate("x", "a note");
  book.add_backlog("x", "an idea");
  const std::string text = book.describe("x");
  EXPECT_NE(text.find("deferred "), std::string::npos) << text;
  EXPECT_NE(text.find("second; next idea: idea two"), std::string::npos) << text;
  EXPECT_NE(text.find("earlier deferral"), std::string::npos) << text;
  EXPECT_NE(text.find("first; next idea: idea one"), std::string::npos) << text;
  EXPECT_NE(text.find(": a note"), std::string::npos) << text;
  EXPECT_NE(text.find("backlog: an idea"), std::string::npos) << text;
  EXPECT_EQ(book.describe("y"), "");
}

TEST(CalibrateNotes, RoundTripsThroughJsonWithEveryField) {
  notes book;
  book.defer("a", "quote \" and backslash \\", "next\nline");
  book.defer("a", "second", "");
  book.mark_retry("b");
  book.annotate("c", "note");
  book.add_backlog("c", "idea");
  auto back = notes::from_json(book.to_json());
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(*back, book);
  EXPECT_EQ(back->find("a")->past_deferrals[0].reason, "quote \" and backslash \\");
}

TEST(CalibrateNotes, FromJsonNamesTheBrokenField) {
  EXPECT_EQ(notes::from_json("[]").error(), "not a JSON object");
  EXPECT_EQ(notes::from_json(R"({"schema":2,"parameters":{}})").error(), "schema: expected 1");
  auto missing = notes::from_json(
      R"({"schema":1,"parameters":{"a":{"deferred":null,"retry":"yes","past_deferrals":[],"annotations":[],"backlog":[]}}})");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error(), "parameters.a.retry: missing or not a boolean");
  auto bad_deferral = notes::from_json(
      R"({"schema":1,"parameters":{"a":{"deferred":{"reason":"r","time_utc":"t"},"retry":false,"past_deferrals":[],"annotations":[],"backlog":[]}}})");
  ASSERT_FALSE(bad_deferral.has_value());
  EXPECT_EQ(bad_deferral.error(), "parameters.a.deferred.next_idea: missing or not a string");
}

TEST_F(CalibrateNotesFiles, AMissingFileIsEmptyNotes) {
  auto loaded = notes::load(dir_ / "notes.json");
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  EXPECT_TRUE(loaded->all().empty());
}

TEST_F(CalibrateNotesFiles, SaveThenLoadKeepsEverythingAndLeavesNoTemporaryFile) {
  notes book;
  book.defer("l1_size", "carve-out", "set it to 0");
  book.add_backlog("l1_size", "sweep finer near the knee");
  const auto path = dir_ / "run" / "notes.json";
  auto saved = book.save(path);
  ASSERT_TRUE(saved.has_value()) << saved.error();
  auto loaded = notes::load(path);
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  EXPECT_EQ(*loaded, book);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(path.parent_path()))
    ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(CalibrateNotesFiles, SavingReplacesTheWholeFile) {
  const auto path = dir_ / "notes.json";
  notes first;
  for (int i = 0; i < 20; ++i)
    first.annotate("p" + std::to_string(i), std::string(200, 'x'));
  ASSERT_TRUE(first.save(path).has_value());
  notes second;
  second.annotate("only", "short");
  ASSERT_TRUE(second.save(path).has_value());
  auto loaded = notes::load(path);
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  EXPECT_EQ(*loaded, second);
}

TEST_F(CalibrateNotesFiles, ABrokenFileIsAnErrorNamingIt) {
  std::filesystem::create_directories(dir_);
  const auto path = dir_ / "notes.json";
  std::ofstream{path} << "{\"schema\": 1, \"parameters\": ";
  auto loaded = notes::load(path);
  ASSERT_FALSE(loaded.has_value());
  EXPECT_NE(loaded.error().find(path.string()), std::string::npos) << loaded.error();
}

TEST_F(CalibrateNotesFiles, SavingWhereNoFolderCanBeMadeIsAnError) {
  std::filesystem::create_directories(dir_);
  std::ofstream{dir_ / "a_file"} << "x";
  notes book;
  auto saved = book.save(dir_ / "a_file" / "notes.json");
  ASSERT_FALSE(saved.has_value());
  EXPECT_NE(saved.error().find("a_file"), std::string::npos) << saved.error();
}

} // namespace
} // namespace warpforge::calibrate
