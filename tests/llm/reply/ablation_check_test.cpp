// Which leave-one-outs a variant owes (llm/reply/ablation_check.hpp), on the scripted replies of
// tests/llm/fixtures and on literal variants.

#include "llm/reply/ablation_check.hpp"
#include "llm/reply/parse.hpp"
#include "reply_test_support.hpp"

namespace {

using namespace warpforge::llm;
using warpforge::llm::testing::example_contract;
using warpforge::llm::testing::read_text;

proposed_variant claiming(std::vector<std::string> methods, std::vector<std::string> undone) {
  proposed_variant v;
  v.name = "v";
  v.methods = std::move(methods);
  for (auto& method : undone)
    v.ablations.push_back({std::move(method), "code", {}, std::nullopt});
  return v;
}

TEST(AblationCheck, OneClaimedMethodOwesNoAblation) {
  const auto v = claiming({"memory.tiling_smem"}, {});
  EXPECT_TRUE(methods_without_ablation(v).empty());
  EXPECT_EQ(missing_ablations_note(v), "");
}

TEST(AblationCheck, TwoMethodsWithoutAblationsCannotBeAttributed) {
  const auto v = claiming({"memory.tiling_smem", "memory.bank_conflict"}, {});
  EXPECT_EQ(methods_without_ablation(v), (std::vector<std::string>{"memory.tiling_smem", "memory.bank_conflict"}));
  EXPECT_EQ(missing_ablations_note(v), "no ablations: attribution not possible");
}

TEST(AblationCheck, APartialSetNamesTheMethodsLeftWithout) {
  const auto v = claiming({"a.x", "b.y", "c.z"}, {"b.y"});
  EXPECT_EQ(methods_without_ablation(v), (std::vector<std::string>{"a.x", "c.z"}));
  EXPECT_EQ(missing_ablations_note(v), "no ablation without a.x, c.z: attribution not possible for them");
  EXPECT_EQ(missing_ablations_note(claiming({"a.x", "b.y"}, {"b.y"})),
            "no ablation without a.x: attribution not possible for it");
}

TEST(AblationCheck, TheScriptedTransposeReplyHasOneFullyAblatedVariantAndTwoWithout) {
  auto reply = parse_reply(read_text("tests/llm/fixtures/transpose/iter1.reply.txt"),
                           example_contract("transpose", "transpose"));
  ASSERT_TRUE(reply.has_value());
  ASSERT_EQ(reply->variants.size(), 3u);
  EXPECT_TRUE(methods_without_ablation(reply->variants[0]).empty()) << reply->variants[0].name;
  for (std::size_t i : {1u, 2u})
    EXPECT_EQ(missing_ablations_note(reply->variants[i]), "no ablations: attribution not possible")
      << reply->variants[i].name;
}

} // namespace
