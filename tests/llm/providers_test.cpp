#include "llm/providers.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace warpforge::llm {
namespace {

TEST(Providers, EveryKindRoundTripsThroughItsName) {
  for (const auto& p : known_providers()) {
    auto back = provider_kind_from_string(to_string(p.kind));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, p.kind);
  }
  EXPECT_FALSE(provider_kind_from_string("gemini").has_value());
}

TEST(Providers, KeyProbeReportsWhetherTheVariableIsSetButNeverItsValue) {
  ::setenv("ANTHROPIC_API_KEY", "sk-secret", 1);
  ::setenv("OPENAI_API_KEY", "", 1);
  auto keys = probe_provider_keys();
  ASSERT_EQ(keys.size(), known_providers().size());
  for (const auto& k : keys) {
    if (k.kind == provider_kind::anthropic) {
      EXPECT_TRUE(k.set);
    }
    if (k.kind == provider_kind::openai) {
      EXPECT_FALSE(k.set) << "an empty variable is not a key";
    }
    EXPECT_EQ(k.api_key_env.find("sk-"), std::string::npos);
  }
  ::unsetenv("ANTHROPIC_API_KEY");
  ::unsetenv("OPENAI_API_KEY");
}

} // namespace
} // namespace warpforge::llm
