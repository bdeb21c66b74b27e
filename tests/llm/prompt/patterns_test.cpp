#include "llm/prompt/patterns.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <unistd.h>

using namespace warpforge::llm;

namespace {

class TempDir : public ::testing::Test {
protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("wf-patterns-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::filesystem::path dir;
};

pattern_library sample() {
  pattern_library library;
  library.add({"transpose", "memory_bound", {"memory.tiling_smem", "memory.bank_conflict"}, 5.6, "32x33 tile"});
  library.add({"copy2d", "memory_bound", {"memory.bank_conflict", "memory.tiling_smem"}, 2.1, "64x65 tile"});
  library.add({"sgemm", "compute_bound", {"compute.ilp_unroll_register_tile"}, 4.0, "8x8 per thread"});
  library.add({"softmax", "memory_bound", {"memory.tiling_smem", "memory.bank_conflict"}, 1.3, "\"quoted\" memo"});
  return library;
}

} // namespace

using PatternLibrary = TempDir;

TEST_F(PatternLibrary, GroupsByMethodSetAndBottleneckMostAcceptedFirst) {
  EXPECT_EQ(sample().render(),
            "memory.bank_conflict + memory.tiling_smem (memory_bound): 3 accepted, best 5.60x (transpose: 32x33 tile)\n"
            "compute.ilp_unroll_register_tile (compute_bound): 1 accepted, best 4.00x (sgemm: 8x8 per thread)\n");
}

TEST_F(PatternLibrary, TheSameMethodsOnAnotherBottleneckAreAnotherGroup) {
  auto library = sample();
  library.add({"stencil", "latency_bound", {"memory.tiling_smem", "memory.bank_conflict"}, 1.8, ""});
  EXPECT_NE(library.render().find("memory.bank_conflict + memory.tiling_smem (latency_bound): 1 accepted, best "
                                  "1.80x (stencil)\n"),
            std::string::npos);
}

TEST_F(PatternLibrary, RenderCapsTheLinesAndCountsTheRest) {
  const auto text = sample().render(1);
  EXPECT_EQ(text.find("compute.ilp"), std::string::npos);
  EXPECT_NE(text.find("(1 more groups left out)\n"), std::string::npos);
  EXPECT_EQ(pattern_library{}.render(), "");
}

TEST_F(PatternLibrary, AddingTheSameEntryTwiceKeepsOne) {
  auto library = sample();
  library.add({"sgemm", "compute_bound", {"compute.ilp_unroll_register_tile"}, 4.0, "8x8 per thread"});
  EXPECT_EQ(library.entries().size(), 4u);
  library.add({"nan", "memory_bound", {}, std::numeric_limits<double>::quiet_NaN(), ""});
  EXPECT_EQ(library.entries().size(), 4u) << "a speed-up JSON cannot hold";
}

TEST_F(PatternLibrary, RoundTripsThroughAFileWrittenAtomically) {
  const auto path = dir / "nested" / "patterns.json";
  ASSERT_TRUE(sample().save(path));
  auto loaded = pattern_library::load(path);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded->entries(), sample().entries());
  for (const auto& entry : std::filesystem::directory_iterator(dir / "nested"))
    EXPECT_EQ(entry.path().filename(), "patterns.json") << "a temp file was left behind";
  auto more = *loaded;
  more.add({"reduce", "latency_bound", {"compute.warp_shuffle"}, 1.5, ""});
  ASSERT_TRUE(more.save(path));
  EXPECT_EQ(pattern_library::load(path)->entries().size(), 5u);
}

TEST_F(PatternLibrary, AMissingFileIsAnEmptyLibrary) {
  auto loaded = pattern_library::load(dir / "absent.json");
  ASSERT_TRUE(loaded);
  EXPECT_TRUE(loaded->entries().empty());
}

TEST_F(PatternLibrary, AMalformedFileIsAnErrorNamingTheFileAndTheEntry) {
  std::filesystem::create_directories(dir);
  const auto path = dir / "patterns.json";
  std::ofstream{path} << R"({"schema": 1, "patterns": [{"kernel": "a", "bottleneck": "b", "methods": [], "memo": ""}]})";
  auto loaded = pattern_library::load(path);
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().find(path.string()), std::string::npos);
  EXPECT_NE(loaded.error().find("patterns[0].speedup"), std::string::npos) << loaded.error();
  std::ofstream{path} << "not json";
  EXPECT_FALSE(pattern_library::load(path));
  std::ofstream{path} << R"({"schema": 2, "patterns": []})";
  EXPECT_NE(pattern_library::load(path).error().find("schema"), std::string::npos);
}

TEST_F(PatternLibrary, ASaveIntoAFolderThatCannotBeCreatedNamesTheStep) {
  std::filesystem::create_directories(dir);
  std::ofstream{dir / "file"} << "x";
  auto saved = sample().save(dir / "file" / "patterns.json");
  ASSERT_FALSE(saved);
  EXPECT_NE(saved.error().find("create"), std::string::npos) << saved.error();
}
