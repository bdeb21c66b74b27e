#include "feed/event.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <array>

namespace warpforge::feed {

constexpr vocabulary::enum_word<event_type> event_type_words[] = {
    {event_type::campaign_started, "campaign_started"},
    {event_type::campaign_finished, "campaign_finished"},
    {event_type::campaign_failed, "campaign_failed"},
    {event_type::campaign_interrupted, "campaign_interrupted"},
    {event_type::job_started, "job_started"},
    {event_type::job_finished, "job_finished"},
    {event_type::job_failed, "job_failed"},
    {event_type::iteration_started, "iteration_started"},
    {event_type::iteration_finished, "iteration_finished"},
    {event_type::diagnosis_ready, "diagnosis_ready"},
    {event_type::branch_proposed, "branch_proposed"},
    {event_type::branch_compiled, "branch_compiled"},
    {event_type::branch_checked, "branch_checked"},
    {event_type::branch_measured, "branch_measured"},
    {event_type::branch_failed, "branch_failed"},
    {event_type::champion_elected, "champion_elected"},
    {event_type::ablation_measured, "ablation_measured"},
    {event_type::llm_call, "llm_call"},
    {event_type::deploy_step, "deploy_step"},
    {event_type::deploy_finished, "deploy_finished"},
    {event_type::gpu_leased, "gpu_leased"},
    {event_type::gpu_released, "gpu_released"},
    {event_type::runner_started, "runner_started"},
    {event_type::runner_restarted, "runner_restarted"},
    {event_type::runner_failed, "runner_failed"},
    {event_type::actor_started, "actor_started"},
    {event_type::actor_restarted, "actor_restarted"},
    {event_type::actor_gave_up, "actor_gave_up"},
    {event_type::feed_dropped, "feed_dropped"},
    {event_type::heartbeat, "heartbeat"},
    {event_type::warning, "warning"},
    {event_type::error, "error"},
};
static_assert(vocabulary::covers(event_type_words, all_event_types));

std::string_view to_string(event_type type) { return vocabulary::word_of(event_type_words, type); }

std::optional<event_type> event_type_from_string(std::string_view text) {
  return vocabulary::value_of(event_type_words, text);
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
