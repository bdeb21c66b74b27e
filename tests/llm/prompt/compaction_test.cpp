#include "llm/prompt/compaction.hpp"

#include <gtest/gtest.h>

using namespace warpforge::llm;

TEST(Compaction, IsNeededOnlyPastTheThreshold) {
  EXPECT_FALSE(needs_compaction(std::string(100, 'x'), 100));
  EXPECT_TRUE(needs_compaction(std::string(101, 'x'), 100));
}

TEST(Compaction, ThePromptAsksForTheThreeSectionsAndCarriesTheRawMemory) {
  const auto p = build_compaction_prompt("iter 1 b1 [memory.tiling_smem]: ACCEPTED");
  ASSERT_EQ(p.stable.size(), 1u);
  for (auto heading : {"## Resolved", "## Pending", "## Avoid"})
    EXPECT_NE(p.stable[0].find(heading), std::string::npos) << heading;
  EXPECT_EQ(p.changing, "## Raw memory\niter 1 b1 [memory.tiling_smem]: ACCEPTED\n");
  EXPECT_EQ(build_compaction_prompt("other").stable, p.stable);
}

TEST(Compaction, AReplyWithTheThreeSectionsParsesInAnyOrder) {
  const auto parsed = parse_compaction("Here is the summary.\n"
                                       "## Avoid\n- memory.async_copy: 0.9x, slower\n\n"
                                       "## Resolved\n- memory.tiling_smem 32x33: 2.5x\n"
                                       "### detail kept\n"
                                       "## Pending:\n");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed->resolved, "- memory.tiling_smem 32x33: 2.5x\n### detail kept\n");
  EXPECT_EQ(parsed->pending, "");
  EXPECT_EQ(parsed->avoid, "- memory.async_copy: 0.9x, slower\n");
}

TEST(Compaction, AMissingSectionIsNamed) {
  const auto parsed = parse_compaction("## Resolved\n- a\n## Avoid\n- b\n");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error(), "missing section ## Pending");
  EXPECT_FALSE(parse_compaction("no sections at all"));
}

TEST(Compaction, ARepeatedOrForeignSectionIsRefused) {
  auto twice = parse_compaction("## Resolved\n- a\n## Pending\n## Avoid\n## Resolved\n- b\n");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().find("## Resolved appears twice"), std::string::npos);
  auto foreign = parse_compaction("## Resolved\n## Pending\n## Avoid\n## Notes\n");
  ASSERT_FALSE(foreign);
  EXPECT_NE(foreign.error().find("## Notes"), std::string::npos);
}

TEST(Compaction, RenderReadsBackAsTheSameMemory) {
  const compacted_memory memory{"- tiling: 2.5x\n", "- vectorise the stores\n", "- async copy: slower\n"};
  const auto text = render(memory);
  EXPECT_EQ(text, "## Resolved\n- tiling: 2.5x\n## Pending\n- vectorise the stores\n## Avoid\n- async copy: slower\n");
  const auto back = parse_compaction(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->resolved, memory.resolved);
  EXPECT_EQ(back->pending, memory.pending);
  EXPECT_EQ(back->avoid, memory.avoid);
  EXPECT_EQ(render(compacted_memory{}), "## Resolved\n- none\n## Pending\n- none\n## Avoid\n- none\n");
}
