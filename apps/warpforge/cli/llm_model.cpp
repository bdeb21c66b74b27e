#include "apps/warpforge/cli/llm_model.hpp"

#include "llm/chat/ping.hpp"
#include "config/toml_reader/placed_error.hpp"

namespace warpforge::cli {

expected<std::optional<model_check>, std::string> check_campaign_model(const std::string& campaign_file) {
  auto spec = config::load_campaign(campaign_file);
  if (!spec)
    return unexpected{toml_reader::to_string(spec.error())};
  if (!spec->llm)
    return std::optional<model_check>{};
  model_check check;
  check.provider = std::string{config::to_string(spec->llm->provider)};
  check.model = spec->llm->model;
  check.base_url = pipeline::base_url_of(*spec->llm);
  auto model = model_for(*spec->llm);
  if (!model) {
    check.detail = model.error();
    return std::optional<model_check>{check};
  }
  auto pinged = llm::ping(**model, spec->llm->model);
  check.answered = pinged.ok;
  check.detail = pinged.detail;
  return std::optional<model_check>{check};
}

} // namespace warpforge::cli
