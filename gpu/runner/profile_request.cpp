#include "gpu/runner/profile_request.hpp"

#include "foundation/json/writer.hpp"
#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/json_fields.hpp"

#include <cmath>
#include <limits>
#include <set>
#include <utility>

namespace warpforge::gpu {

constexpr vocabulary::enum_word<profile_replay> profile_replay_words[] = {
    {profile_replay::kernel, "kernel"},
    {profile_replay::user, "user"},
};
static_assert(vocabulary::covers(profile_replay_words, all_profile_replays));

std::string_view to_string(profile_replay replay) { return vocabulary::word_of(profile_replay_words, replay); }

std::optional<profile_replay> profile_replay_from_string(std::string_view text) {
  return vocabulary::value_of(profile_replay_words, text);
}

constexpr vocabulary::enum_word<profile_status> profile_status_words[] = {
    {profile_status::ok, "ok"},
    {profile_status::counters_unavailable, "counters_unavailable"},
    {profile_status::not_supported, "not_supported"},
    {profile_status::failed, "failed"},
};
static_assert(vocabulary::covers(profile_status_words, all_profile_statuses));

std::string_view to_string(profile_status status) { return vocabulary::word_of(profile_status_words, status); }

std::optional<profile_status> profile_status_from_string(std::string_view text) {
  return vocabulary::value_of(profile_status_words, text);
}

constexpr vocabulary::enum_word<metric_source> metric_source_words[] = {
    {metric_source::cupti, "cupti"},
    {metric_source::ncu, "ncu"},
};
static_assert(vocabulary::covers(metric_source_words, all_metric_sources));

std::string_view to_string(metric_source source) { return vocabulary::word_of(metric_source_words, source); }

std::optional<metric_source> metric_source_from_string(std::string_view text) {
  return vocabulary::value_of(metric_source_words, text);
}

namespace {

constexpr std::string_view request_context = "profile_candidate";
constexpr std::string_view reply_context = "profile_candidate reply";
// decode_race_request's own context, replaced by "profile_candidate.run" in its errors.
constexpr std::string_view run_context = "run_race";

template <class Value, class Read>
void read_map(json_object_reader& in, std::string_view key, std::map<std::string, Value>& out,
              Read read) {
  simdjson::dom::object object;
  in.required(key, object);
  if (!in.ok())
    return;
  for (auto [name, element] : object) {
    Value value{};
    if (!read(element, value))
      return in.fail(key, "'" + std::string{name} + "' has the wrong type");
    out.emplace(std::string{name}, std::move(value));
  }
}

} // namespace

std::string encode_body(const profile_request& request) {
  json::writer out;
  out.begin_object();
  out.key("run").raw(encode_body(request.run));
  out.key("metrics").begin_array();
  for (const auto& metric : request.metrics)
    out.value(metric);
  out.end_array();
  out.key("replay").value(to_string(request.replay));
  out.end_object();
  return std::move(out).str();
}

expected<profile_request, json_error> decode_profile_request(std::string_view body_json) {
  simdjson::dom::parser parser;
  auto object = parse_object(parser, body_json, request_context);
  if (!object)
    return unexpected(object.error());
  json_object_reader in{*object, std::string{request_context}};
  profile_request request;

  simdjson::dom::object run;
  in.required("run", run);
  if (in.ok()) {
    auto decoded = decode_race_request(simdjson::minify(run));
    if (decoded) {
      request.run = std::move(*decoded);
    } else {
      std::string detail = decoded.error().detail;
      if (detail.rfind(run_context, 0) == 0)
        detail.erase(0, run_context.size());
      if (!detail.empty() && detail.front() == '.')
        detail.erase(0, 1);
      in.fail("run", detail);
    }
  }
  in.required("metrics", request.metrics);
  if (in.ok()) {
    std::set<std::string_view> seen;
    for (const auto& metric : request.metrics) {
      if (metric.empty())
        in.fail("metrics", "an empty metric name");
      else if (!seen.insert(metric).second)
        in.fail("metrics", "'" + metric + "' is listed twice");
    }
    if (in.ok() && request.metrics.empty())
      in.fail("metrics", "empty (name at least one metric)");
  }
  in.required("replay", request.replay, &profile_replay_from_string);
  if (!in.ok())
    return unexpected(in.error());
  return request;
}

std::string encode_body(const profile_result& r) {
  json::writer out;
  out.begin_object();
  out.key("status").value(to_string(r.status));
  out.key("source").value(to_string(r.source));
  out.key("replay").value(to_string(r.replay));
  out.key("values").begin_object();
  for (const auto& [name, value] : r.values)
    out.key(name).value(value); // finite by construction; a NaN would be written as null
  out.end_object();
  out.key("missing").begin_object();
  for (const auto& [name, why] : r.missing)
    out.key(name).value(why);
  out.end_object();
  out.key("passes").value(static_cast<std::uint64_t>(r.passes));
  out.key("note").value(r.note);
  out.key("runner_exits").value(r.runner_exits);
  out.end_object();
  return std::move(out).str();
}

expected<profile_result, json_error> decode_profile_result(std::string_view body_json) {
  simdjson::dom::parser parser;
  auto object = parse_object(parser, body_json, reply_context);
  if (!object)
    return unexpected(object.error());
  json_object_reader in{*object, std::string{reply_context}};
  profile_result r;
  in.required("status", r.status, &profile_status_from_string);
  in.required("source", r.source, &metric_source_from_string);
  in.required("replay", r.replay, &profile_replay_from_string);
  read_map(in, "values", r.values, [](simdjson::dom::element e, double& v) {
    return e.get_double().get(v) == simdjson::SUCCESS;
  });
  read_map(in, "missing", r.missing, [](simdjson::dom::element e, std::string& v) {
    std::string_view text;
    if (e.get(text) != simdjson::SUCCESS)
      return false;
    v = text;
    return true;
  });
  std::uint64_t passes = 0;
  in.required("passes", passes);
  if (in.ok() && passes > std::numeric_limits<std::uint32_t>::max())
    in.fail("passes", "too large");
  r.passes = static_cast<std::uint32_t>(passes);
  in.required("note", r.note);
  in.required("runner_exits", r.runner_exits);
  if (!in.ok())
    return unexpected(in.error());
  return r;
}

namespace {

// {"<key>": [body, ...]} from each item's own body.
template <class Item>
std::string encode_list(std::string_view key, const std::vector<Item>& items) {
  json::writer out;
  out.begin_object();
  out.key(key).begin_array();
  for (const auto& item : items)
    out.raw(encode_body(item));
  out.end_array();
  out.end_object();
  return std::move(out).str();
}

// The items of {"<key>": [body, ...]}, each decoded by `decode`; an error names the item
// ("<context>.<key>[2]: ...").
template <class Item, class Decode>
expected<std::vector<Item>, json_error> decode_list(std::string_view body_json, std::string_view context,
                                                    std::string_view key, Decode decode) {
  simdjson::dom::parser parser;
  auto object = parse_object(parser, body_json, context);
  if (!object)
    return unexpected(object.error());
  json_object_reader in{*object, std::string{context}};
  simdjson::dom::array array;
  in.required(key, array);
  if (!in.ok())
    return unexpected(in.error());
  std::vector<Item> items;
  for (auto element : array) {
    auto item = decode(simdjson::minify(element));
    if (!item)
      return unexpected(json_error{std::string{context} + "." + std::string{key} + "[" + std::to_string(items.size()) +
                                   "]: " + item.error().detail});
    items.push_back(std::move(*item));
  }
  if (items.empty())
    return unexpected(json_error{std::string{context} + "." + std::string{key} + ": empty (name at least one)"});
  return items;
}

} // namespace

std::string encode_body(const std::vector<profile_request>& requests) { return encode_list("profiles", requests); }

expected<std::vector<profile_request>, json_error> decode_profile_requests(std::string_view body_json) {
  auto requests = decode_list<profile_request>(body_json, "profile_candidates request", "profiles",
                                               [](std::string_view item) { return decode_profile_request(item); });
  if (requests)
    for (const auto& r : *requests)
      if (r.metrics != requests->front().metrics || r.replay != requests->front().replay)
        return unexpected(json_error{"profile_candidates request.profiles: the profiles differ in their metrics or "
                                     "replay (one batch shares them)"});
  return requests;
}

std::string encode_body(const std::vector<profile_result>& results) { return encode_list("results", results); }

expected<std::vector<profile_result>, json_error> decode_profile_results(std::string_view body_json) {
  return decode_list<profile_result>(body_json, "profile_candidates reply", "results",
                                     [](std::string_view item) { return decode_profile_result(item); });
}

} // namespace warpforge::gpu
