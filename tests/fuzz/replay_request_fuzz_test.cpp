// Fuzzing the replay request decoder: whatever a peer sends to the replay endpoint is decoded or
// refused naming the member at fault, never crashes, throws or hangs (issue 22).
#include "feed/replay_protocol.hpp"
#include "tests/fuzz/mutator.hpp"

#include <limits>

namespace warpforge::testing {
namespace {

TEST(ReplayRequestFuzz, MutatedRequestsAreDecodedOrRefusedNamingTheMember) {
  std::vector<std::string> seeds{
    feed::encode(feed::replay_request{}),
    feed::encode(feed::replay_request{.after = 41, .until = 99, .limit = 10}),
    feed::encode(feed::replay_request{.after = std::numeric_limits<std::uint64_t>::max() - 1, .until = std::nullopt,
                                      .limit = std::nullopt}),
    R"({"after": 18446744073709551616, "until": -1, "limit": 1e30})",
    R"({"after": "1", "extra": [[[[[[[[[[]]]]]]]]]]})"};
  fuzz_campaign campaign{"replay_request", seeds, 100'000};
  campaign.run([](std::string_view text) {
    const auto request = feed::decode_replay_request(text);
    if (request) { // what was accepted means one thing: encoding it gives the same request back
      const auto again = feed::decode_replay_request(feed::encode(*request));
      ASSERT_TRUE(again.has_value()) << text;
      EXPECT_EQ(*again, *request) << text;
    }
  });
}

// The fuzzer itself: an input that crashes its target is left on disk for replay, byte for byte.
TEST(FuzzCampaignDeathTest, AnInputThatCrashesTheTargetIsKeptForReplay) {
  fuzz_campaign campaign{"crash_keeper_check", {"a harmless seed", "CRASH here"}, 0};
  std::filesystem::remove(campaign.last_input_path());
  EXPECT_DEATH(campaign.run([](std::string_view input) {
    if (input.find("CRASH") != std::string_view::npos)
      std::abort();
  }),
               "");
  EXPECT_EQ(read_text(campaign.last_input_path()), "CRASH here");
  std::filesystem::remove(campaign.last_input_path());
}

} // namespace
} // namespace warpforge::testing
