#include "feed/terminal_block.hpp"

#include <gtest/gtest.h>
#include <gmock/gmock.h>

namespace warpforge::feed {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

TEST(TerminalBlock, TheFirstPaintReservesTheBottomRowsAsABlockBelowAScrollRegion) {
  terminal_block block;
  auto out = block.paint({"first", "second"}, 24, 80);
  EXPECT_THAT(out, StartsWith("\n\n\x1b[2A"));                         // room made, cursor back
  EXPECT_THAT(out, HasSubstr("\x1b" "7\x1b[1;22r\x1b" "8"));           // rows 1-22 scroll
  EXPECT_THAT(out, HasSubstr("\x1b[23;1H\x1b[2Kfirst\x1b[24;1H\x1b[2Ksecond"));
  EXPECT_EQ(block.height(), 2u);
}

TEST(TerminalBlock, LaterPaintsOnlyRedrawTheBlockAndKeepTheCursor) {
  terminal_block block;
  block.paint({"first", "second"}, 24, 80);
  EXPECT_EQ(block.paint({"third", "fourth"}, 24, 80),
            "\x1b" "7\x1b[23;1H\x1b[2Kthird\x1b[24;1H\x1b[2Kfourth\x1b" "8");
}

TEST(TerminalBlock, AGrowingBlockOrAResizedTerminalIsReservedAgain) {
  terminal_block block;
  block.paint({"a"}, 24, 80);
  auto grown = block.paint({"a", "b"}, 24, 80);
  EXPECT_THAT(grown, StartsWith("\x1b" "7\x1b[r\x1b[24;1H\x1b[J\x1b" "8")); // the old one given back
  EXPECT_THAT(grown, HasSubstr("\x1b[1;22r"));
  auto resized = block.paint({"a", "b"}, 40, 80);
  EXPECT_THAT(resized, HasSubstr("\x1b[1;38r"));
  EXPECT_THAT(resized, HasSubstr("\x1b[39;1H\x1b[2Ka\x1b[40;1H\x1b[2Kb"));
}

TEST(TerminalBlock, LinesAreCutToTheWidthAndATallBlockLeavesRowsToScroll) {
  terminal_block block;
  auto out = block.paint({"0123456789", "b", "c", "d", "e", "f"}, 6, 5);
  EXPECT_EQ(block.height(), 3u) << "6 rows, 3 always left to the scrolling output";
  EXPECT_THAT(out, HasSubstr("\x1b[2K0123\x1b"));
  EXPECT_THAT(out, Not(HasSubstr("\x1b[2Kd")));
  EXPECT_EQ(terminal_block{}.paint({"x"}, 3, 80), "") << "too small to hold a block";
}

TEST(TerminalBlock, ReleaseResetsTheRegionErasesTheBlockAndPrintsTheFinalLines) {
  terminal_block block;
  block.paint({"a", "b"}, 24, 80);
  EXPECT_EQ(block.release({"done", "bye"}),
            "\x1b" "7\x1b[r\x1b[23;1H\x1b[J\x1b" "8done\nbye\n");
  EXPECT_EQ(block.height(), 0u);
  EXPECT_EQ(terminal_block{}.release({"plain"}), "plain\n") << "nothing painted, nothing to reset";
}

} // namespace
} // namespace warpforge::feed
