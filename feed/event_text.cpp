#include "feed/event_text.hpp"

#include "foundation/vocabulary/number_text.hpp"

#include <simdjson.h>

#include <array>
#include <cmath>
#include <cstdio>

namespace warpforge::feed {
namespace {

constexpr int seconds_per_minute = 60;
constexpr int seconds_per_hour = 3600;
constexpr int seconds_per_day = 86400;

/// Detail members a person wants beside a problem's message, in this order.
constexpr std::array<std::string_view, 6> problem_context_keys{
  "actor", "attempt", "exit_code", "signal", "outcome", "delay_s"};

const detail_member* find(const detail_members& members, std::string_view key) {
  for (const auto& member : members)
    if (member.key == key)
      return &member;
  return nullptr;
}

} // namespace

detail_members read_detail(std::string_view detail_json) {
  thread_local simdjson::dom::parser parser; // one per thread (TOOLCHAIN.md 7.14)
  detail_members members;
  simdjson::dom::object object;
  if (parser.parse(detail_json.data(), detail_json.size()).get_object().get(object))
    return members;
  for (auto member : object) {
    detail_member read{std::string{member.key}, std::nullopt, {}};
    switch (member.value.type()) {
      case simdjson::dom::element_type::STRING:
        read.text = std::string{member.value.get_string().value_unsafe()};
        break;
      case simdjson::dom::element_type::INT64:
      case simdjson::dom::element_type::UINT64:
      case simdjson::dom::element_type::DOUBLE:
        read.number = member.value.get_double().value_unsafe();
        read.text = simdjson::minify(member.value);
        break;
      default: read.text = simdjson::minify(member.value); break;
    }
    members.push_back(std::move(read));
  }
  return members;
}

std::optional<double> number_of(const detail_members& members, std::string_view key) {
  auto* member = find(members, key);
  return member ? member->number : std::nullopt;
}

std::optional<std::string> text_of(const detail_members& members, std::string_view key) {
  auto* member = find(members, key);
  if (!member)
    return std::nullopt;
  return member->text;
}

std::string job_label(std::string_view campaign, std::string_view job) {
  if (campaign.empty())
    return std::string{job};
  if (job.empty())
    return std::string{campaign};
  return std::string{campaign} + "/" + std::string{job};
}

std::string place_of(const event& e) {
  std::string place = job_label(e.campaign, e.job);
  auto append = [&place](std::string_view name, std::int64_t value) {
    if (value < 0)
      return;
    if (!place.empty())
      place += ' ';
    place.append(name).append(" ").append(std::to_string(value));
  };
  append("iter", e.iter);
  append("branch", e.branch);
  append("gpu", e.gpu);
  return place;
}

bool is_problem(event_type type) {
  switch (type) {
    case event_type::warning:
    case event_type::error:
    case event_type::campaign_failed:
    case event_type::campaign_interrupted:
    case event_type::job_failed:
    case event_type::runner_restarted:
    case event_type::runner_failed:
    case event_type::actor_restarted:
    case event_type::actor_gave_up: return true;
    default: return false;
  }
}

bool is_warning(event_type type) {
  return type == event_type::warning || type == event_type::runner_restarted ||
         type == event_type::actor_restarted || type == event_type::campaign_interrupted;
}

std::string problem_message(const detail_members& detail) {
  std::string message = text_of(detail, "message").value_or(text_of(detail, "reason").value_or(""));
  std::string context;
  for (auto key : problem_context_keys) {
    if (auto value = text_of(detail, key)) {
      context += context.empty() ? "" : " ";
      context.append(key).append("=").append(*value);
    }
  }
  if (!context.empty())
    message += (message.empty() ? "[" : " [") + context + "]";
  return message;
}

std::string event_line(const event& e) {
  static const std::string not_measured_text = "not measured";
  std::string line = "#" + std::to_string(e.seq) + " " + format_clock(e.ts) + " " +
                     std::string{to_string(e.type)};
  auto place = place_of(e);
  if (!place.empty())
    line += " " + place;
  auto detail = read_detail(e.detail_json);
  for (std::size_t index = 0; index < detail.size(); ++index) {
    line += index == 0 ? ": " : " ";
    const auto& member = detail[index];
    // null is what was not measured (docs/events.md): said in words, never shown as a number.
    const std::string& text = member.text == "null" ? not_measured_text : member.text;
    bool quote = !member.number && text.find(' ') != std::string::npos;
    line += member.key + "=" + (quote ? "\"" + text + "\"" : text);
  }
  return line;
}

// Times and speed-ups read as everywhere else (foundation/vocabulary/number_text.hpp).
std::string format_seconds(double seconds) { return vocabulary::time_text(seconds); }

std::string format_speedup(double ratio) { return vocabulary::speedup_text(ratio); }

std::string format_clock(double unix_s) {
  if (!std::isfinite(unix_s))
    return "--:--:--";
  auto whole = static_cast<long long>(std::floor(unix_s));
  auto of_day = ((whole % seconds_per_day) + seconds_per_day) % seconds_per_day;
  char text[16];
  std::snprintf(text, sizeof text, "%02lld:%02lld:%02lld", of_day / seconds_per_hour,
                (of_day % seconds_per_hour) / seconds_per_minute, of_day % seconds_per_minute);
  return text;
}

std::string format_duration(double seconds) {
  auto whole = std::isfinite(seconds) && seconds > 0 ? static_cast<long long>(seconds) : 0LL;
  char text[32];
  std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", whole / seconds_per_hour,
                (whole % seconds_per_hour) / seconds_per_minute, whole % seconds_per_minute);
  return text;
}

std::string format_percent(double ratio) { return vocabulary::fraction_text(ratio); }

} // namespace warpforge::feed
