#pragma once
// The campaign's model as a chat client: the [llm] table turned into the provider's client, with
// the built-in price table and a spend ledger holding the campaign's budgets. `run`, `resume` and
// `doctor` make it the same way.

#include "config/campaign_spec.hpp"
#include "foundation/expected/expected.hpp"
#include "llm/chat/chat.hpp"
#include "pipeline/llm/model.hpp"

#include <memory>

namespace warpforge::cli {

/// The provider's client for `spec` (pipeline/llm/model.hpp: the deployer makes it the same way).
using pipeline::model_for;

/// `warpforge doctor --campaign FILE`: whether the campaign's model answers a one-token request.
struct model_check {
  std::string provider;  // "anthropic" | "openai"
  std::string model;
  std::string base_url;  // as configured, or the provider's public endpoint
  bool answered = false;
  std::string detail;    // the time and model, or the error's kind and message (never the key)
};
/// None when the campaign has no [llm] table; an error when the file does not load.
expected<std::optional<model_check>, std::string> check_campaign_model(const std::string& campaign_file);

} // namespace warpforge::cli
