#include "foundation/vocabulary/enum_text.hpp"

#include <gtest/gtest.h>

#include <array>

namespace warpforge::vocabulary {
namespace {

enum class colour { red, green, blue };
constexpr colour all_colours[] = {colour::red, colour::green, colour::blue};

constexpr enum_word<colour> colour_words[] = {
    {colour::red, "red"},
    {colour::green, "green"},
    {colour::blue, "blue"},
};

TEST(EnumText, EachValueReadsAsItsWordAndEachWordBackAsItsValue) {
  for (auto value : all_colours)
    EXPECT_EQ(value_of(colour_words, word_of(colour_words, value)), value);
  EXPECT_EQ(word_of(colour_words, colour::green), "green");
  EXPECT_EQ(value_of(colour_words, "blue"), colour::blue);
}

TEST(EnumText, AWordNotInTheTableIsNoValueExactlyAsWritten) {
  EXPECT_EQ(value_of(colour_words, "purple"), std::nullopt);
  EXPECT_EQ(value_of(colour_words, ""), std::nullopt);
  EXPECT_EQ(value_of(colour_words, "Red"), std::nullopt);
  EXPECT_EQ(value_of(colour_words, "red "), std::nullopt);
}

TEST(EnumText, AValueOutsideTheEnumReadsUnknown) {
  EXPECT_EQ(word_of(colour_words, static_cast<colour>(7)), "unknown");
}

TEST(EnumText, CoversHoldsOnlyForATableWithEveryValueOnceAndEveryWordOnce) {
  EXPECT_TRUE(covers(colour_words, all_colours));
  EXPECT_TRUE(covers(colour_words, std::array{colour::red, colour::green, colour::blue}));

  constexpr enum_word<colour> missing[] = {{colour::red, "red"}, {colour::green, "green"}};
  EXPECT_FALSE(covers(missing, all_colours));

  constexpr enum_word<colour> value_twice[] = {
      {colour::red, "red"}, {colour::green, "green"}, {colour::blue, "blue"}, {colour::red, "rouge"}};
  EXPECT_FALSE(covers(value_twice, all_colours));

  constexpr enum_word<colour> word_twice[] = {{colour::red, "red"}, {colour::green, "red"}, {colour::blue, "blue"}};
  EXPECT_FALSE(covers(word_twice, all_colours));

  constexpr enum_word<colour> extra[] = {{colour::red, "red"}, {colour::green, "green"}, {colour::blue, "blue"}};
  EXPECT_FALSE(covers(extra, std::array{colour::red, colour::green}));
}

} // namespace
} // namespace warpforge::vocabulary
