#include "llm/providers.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <array>
#include <cstdlib>
#include <iterator>

namespace warpforge::llm {
namespace {

constexpr std::array<provider_info, 2> providers{{
  {provider_kind::anthropic, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
   "https://api.anthropic.com"},
  {provider_kind::openai, "OPENAI_API_KEY", "OPENAI_BASE_URL", "https://api.openai.com/v1"},
}};

} // namespace

constexpr vocabulary::enum_word<provider_kind> provider_kind_words[] = {
    {provider_kind::anthropic, "anthropic"},
    {provider_kind::openai, "openai"},
};
static_assert(std::size(provider_kind_words) == providers.size(), "every provider has its word");

std::string_view to_string(provider_kind kind) { return vocabulary::word_of(provider_kind_words, kind); }

std::optional<provider_kind> provider_kind_from_string(std::string_view text) {
  return vocabulary::value_of(provider_kind_words, text);
}

std::span<const provider_info> known_providers() {
  return providers;
}

std::vector<key_presence> probe_provider_keys() {
  std::vector<key_presence> result;
  for (const auto& p : providers) {
    const char* value = std::getenv(std::string{p.api_key_env}.c_str());
    result.push_back({p.kind, std::string{p.api_key_env}, value != nullptr && *value != '\0'});
  }
  return result;
}

} // namespace warpforge::llm
