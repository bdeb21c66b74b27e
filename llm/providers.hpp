#pragma once
// The LLM providers warpforge can talk to, and where each one's credentials come from. Keys are
// only ever read from the environment at the moment of a request; nothing here stores or prints
// a key's value.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm {

enum class provider_kind {
  anthropic, // Anthropic Messages API
  openai,    // OpenAI-compatible chat completions (OpenAI itself or a compatible server)
};

std::string_view to_string(provider_kind kind);
std::optional<provider_kind> provider_kind_from_string(std::string_view text);

struct provider_info {
  provider_kind kind;
  std::string_view api_key_env;      // environment variable holding the key
  std::string_view base_url_env;     // optional override of the endpoint
  std::string_view default_base_url;
};

/// Every provider warpforge knows, in a stable order.
std::span<const provider_info> known_providers();

/// Whether a provider's key variable is set (non-empty), by name only.
struct key_presence {
  provider_kind kind;
  std::string api_key_env;
  bool set = false;
};

/// Looks at the environment for every known provider's key variable.
std::vector<key_presence> probe_provider_keys();

} // namespace warpforge::llm
