#include "feed/event.hpp"

#include <array>

namespace warpforge::feed {

std::string_view to_string(event_type type) {
  switch (type) {
    case event_type::campaign_started: return "campaign_started";
    case event_type::campaign_finished: return "campaign_finished";
    case event_type::campaign_failed: return "campaign_failed";
    case event_type::campaign_interrupted: return "campaign_interrupted";
    case event_type::job_started: return "job_started";
    case event_type::job_finished: return "job_finished";
    case event_type::job_failed: return "job_failed";
    case event_type::iteration_started: return "iteration_started";
    case event_type::iteration_finished: return "iteration_finished";
    case event_type::diagnosis_ready: return "diagnosis_ready";
    case event_type::branch_proposed: return "branch_proposed";
    case event_type::branch_compiled: return "branch_compiled";
    case event_type::branch_checked: return "branch_checked";
    case event_type::branch_measured: return "branch_measured";
    case event_type::branch_failed: return "branch_failed";
    case event_type::champion_elected: return "champion_elected";
    case event_type::ablation_measured: return "ablation_measured";
    case event_type::llm_call: return "llm_call";
    case event_type::deploy_step: return "deploy_step";
    case event_type::deploy_finished: return "deploy_finished";
    case event_type::gpu_leased: return "gpu_leased";
    case event_type::gpu_released: return "gpu_released";
    case event_type::runner_started: return "runner_started";
    case event_type::runner_restarted: return "runner_restarted";
    case event_type::runner_failed: return "runner_failed";
    case event_type::actor_started: return "actor_started";
    case event_type::actor_restarted: return "actor_restarted";
    case event_type::actor_gave_up: return "actor_gave_up";
    case event_type::feed_dropped: return "feed_dropped";
    case event_type::heartbeat: return "heartbeat";
    case event_type::warning: return "warning";
    case event_type::error: return "error";
  }
  return "unknown";
}

std::optional<event_type> event_type_from_string(std::string_view text) {
  for (auto type : all_event_types)
    if (to_string(type) == text)
      return type;
  return std::nullopt;
}

std::optional<std::string_view> object_members(std::string_view object_json) {
  constexpr std::string_view blanks = " \t\r\n";
  auto first = object_json.find_first_not_of(blanks);
  auto last = object_json.find_last_not_of(blanks);
  if (first == std::string_view::npos || last == first || object_json[first] != '{' ||
      object_json[last] != '}')
    return std::nullopt;
  auto inner = object_json.substr(first + 1, last - first - 1);
  auto inner_first = inner.find_first_not_of(blanks);
  if (inner_first == std::string_view::npos)
    return std::string_view{};
  return inner.substr(inner_first, inner.find_last_not_of(blanks) - inner_first + 1);
}

bool is_envelope_member(std::string_view name) {
  static constexpr std::array<std::string_view, 9> envelope{
    "schema", "seq", "ts", "type", "campaign", "job", "iter", "branch", "gpu"};
  for (auto member : envelope)
    if (member == name)
      return true;
  return false;
}

detail::detail() {
  writer_.begin_object();
}

void detail::add_key(std::string_view key) {
  if (is_envelope_member(key))
    throw std::invalid_argument("feed::detail: '" + std::string{key} +
                                "' is an envelope member and cannot be a detail field");
  writer_.key(key);
}

detail& detail::add_null(std::string_view key) {
  add_key(key);
  writer_.null();
  return *this;
}

detail& detail::add_raw(std::string_view key, std::string_view json_text) {
  add_key(key);
  writer_.raw(json_text);
  return *this;
}

std::string detail::json() const {
  json::writer closed = writer_;
  closed.end_object();
  return std::move(closed).str();
}

std::string detail::appended_to(std::string_view object_json) const {
  auto members = object_members(object_json);
  if (!members)
    throw std::invalid_argument("feed::detail: cannot append to '" + std::string{object_json} +
                                "': not a JSON object");
  const auto own_text = json();
  auto own = object_members(own_text).value_or("");
  if (members->empty())
    return "{" + std::string{own} + "}";
  if (own.empty())
    return "{" + std::string{*members} + "}";
  return "{" + std::string{*members} + "," + std::string{own} + "}";
}

} // namespace warpforge::feed
