#include "pipeline/llm/model.hpp"

#include "llm/chat/prices.hpp"
#include "llm/chat/provider_client.hpp"
#include "llm/chat/spend_ledger.hpp"
#include "llm/providers.hpp"

#include <chrono>

namespace warpforge::pipeline {

namespace {

std::chrono::milliseconds ms(double seconds) {
  return std::chrono::milliseconds{static_cast<std::int64_t>(seconds * 1000)};
}

} // namespace

std::string base_url_of(const config::llm_spec& spec) {
  if (spec.base_url)
    return *spec.base_url;
  for (const auto& known : llm::known_providers())
    if (std::string_view{config::to_string(spec.provider)} == llm::to_string(known.kind))
      return std::string{known.default_base_url};
  return {};
}

expected<std::shared_ptr<llm::chat_client>, std::string> model_for(const config::llm_spec& spec) {
  llm::client_config c;
  c.provider = spec.provider == config::llm_provider::openai ? llm::provider_kind::openai : llm::provider_kind::anthropic;
  c.base_url = base_url_of(spec);
  c.api_key_env = spec.api_key_env;
  c.limits.first_byte = ms(spec.first_byte_timeout_s);
  c.limits.total = ms(spec.total_timeout_s);
  c.retry.max_attempts = spec.max_attempts;
  c.max_concurrent = spec.max_concurrent;
  auto prices = llm::price_table::built_in();
  if (!prices)
    return unexpected{"the built-in price table: " + prices.error()};
  auto ledger = std::make_shared<llm::spend_ledger>(llm::spend_limits{spec.budget_usd, spec.budget_tokens});
  auto client = llm::make_provider_client(std::move(c), std::move(ledger), std::move(*prices));
  if (!client)
    return unexpected{"[llm]: " + client.error()};
  return std::shared_ptr<llm::chat_client>{std::move(*client)};
}

} // namespace warpforge::pipeline
