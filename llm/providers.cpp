#include "llm/providers.hpp"

#include <array>
#include <cstdlib>

namespace warpforge::llm {
namespace {

constexpr std::array<provider_info, 2> providers{{
  {provider_kind::anthropic, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
   "https://api.anthropic.com"},
  {provider_kind::openai, "OPENAI_API_KEY", "OPENAI_BASE_URL", "https://api.openai.com/v1"},
}};

} // namespace

std::string_view to_string(provider_kind kind) {
  switch (kind) {
    case provider_kind::anthropic: return "anthropic";
    case provider_kind::openai: return "openai";
  }
  return "unknown";
}

std::optional<provider_kind> provider_kind_from_string(std::string_view text) {
  for (const auto& p : providers)
    if (to_string(p.kind) == text)
      return p.kind;
  return std::nullopt;
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
