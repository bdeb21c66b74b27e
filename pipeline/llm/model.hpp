#pragma once
// The campaign's model as a chat client: the [llm] table turned into the provider's client, with
// the built-in price table and a spend ledger holding the campaign's budgets. `run`, `resume`,
// `doctor` (apps/warpforge/cli/) and the deployer's build-fix (actors/deployer.cpp) make it the same way.
//
//   auto model = pipeline::model_for(*campaign.llm);   // expected<shared_ptr<chat_client>, string>
//
// The API key is not read here: the client reads the variable `api_key_env` names at each request.

#include "config/campaign_spec.hpp"
#include "foundation/expected/expected.hpp"
#include "llm/chat/chat.hpp"

#include <memory>
#include <string>

namespace warpforge::pipeline {

/// The provider's client for `spec`; the error names the [llm] setting that is wrong.
expected<std::shared_ptr<llm::chat_client>, std::string> model_for(const config::llm_spec& spec);

/// `spec.base_url`, else the provider's public endpoint.
std::string base_url_of(const config::llm_spec& spec);

} // namespace warpforge::pipeline
