#include "calibrate/notes.hpp"

#include "foundation/files/atomic_write.hpp"

#include "foundation/json/writer.hpp"

#include <simdjson.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace warpforge::calibrate {
namespace {

constexpr std::int64_t schema_version = 1; // bumped when a field is renamed or changes meaning

std::string now_utc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

void write_deferral(json::writer& w, const deferral& d) {
  w.begin_object().key("reason").value(d.reason).key("next_idea").value(d.next_idea);
  w.key("time_utc").value(d.time_utc).end_object();
}

void write_parameter(json::writer& w, const parameter_notes& p) {
  w.begin_object().key("deferred");
  if (p.deferred)
    write_deferral(w, *p.deferred);
  else
    w.null();
  w.key("past_deferrals").begin_array();
  for (const auto& d : p.past_deferrals)
    write_deferral(w, d);
  w.end_array().key("retry").value(p.retry).key("annotations").begin_array();
  for (const auto& a : p.annotations)
    w.begin_object().key("text").value(a.text).key("time_utc").value(a.time_utc).end_object();
  w.end_array().key("backlog").begin_array();
  for (const auto& idea : p.backlog)
    w.value(idea);
  w.end_array().end_object();
}

using element = simdjson::dom::element;

expected<std::string, std::string> text_field(element object, std::string_view key,
                                              const std::string& where) {
  std::string_view text;
  if (object[key].get(text) != simdjson::SUCCESS)
    return unexpected{where + "." + std::string{key} + ": missing or not a string"};
  return std::string{text};
}

expected<deferral, std::string> read_deferral(element object, const std::string& where) {
  deferral out;
  auto reason = text_field(object, "reason", where);
  auto idea = text_field(object, "next_idea", where);
  auto time = text_field(object, "time_utc", where);
  if (!reason || !idea || !time)
    return unexpected{!reason ? reason.error() : !idea ? idea.error() : time.error()};
  out.reason = std::move(*reason);
  out.next_idea = std::move(*idea);
  out.time_utc = std::move(*time);
  return out;
}

expected<simdjson::dom::array, std::string> array_field(element object, std::string_view key,
                                                        const std::string& where) {
  simdjson::dom::array list;
  if (object[key].get(list) != simdjson::SUCCESS)
    return unexpected{where + "." + std::string{key} + ": missing or not an array"};
  return list;
}

expected<void, std::string> read_lists(element object, const std::string& where,
                                       parameter_notes& out) {
  auto past = array_field(object, "past_deferrals", where);
  auto annotations = array_field(object, "annotations", where);
  auto backlog = array_field(object, "backlog", where);
  if (!past || !annotations || !backlog)
    return unexpected{!past ? past.error() : !annotations ? annotations.error() : backlog.error()};
  std::size_t index = 0;
  for (auto entry : *past) {
    auto d = read_deferral(entry, where + ".past_deferrals[" + std::to_string(index++) + "]");
    if (!d)
      return unexpected{d.error()};
    out.past_deferrals.push_back(std::move(*d));
  }
  index = 0;
  for (auto entry : *annotations) {
    const std::string at = where + ".annotations[" + std::to_string(index++) + "]";
    auto text = text_field(entry, "text", at);
    auto time = text_field(entry, "time_utc", at);
    if (!text || !time)
      return unexpected{!text ? text.error() : time.error()};
    out.annotations.push_back({std::move(*text), std::move(*time)});
  }
  index = 0;
  for (auto entry : *backlog) {
    std::string_view idea;
    if (entry.get(idea) != simdjson::SUCCESS)
      return unexpected{where + ".backlog[" + std::to_string(index) + "]: not a string"};
    ++index;
    out.backlog.emplace_back(idea);
  }
  return {};
}

expected<parameter_notes, std::string> read_parameter(element object, const std::string& where) {
  parameter_notes out;
  element deferred;
  if (object["deferred"].get(deferred) != simdjson::SUCCESS)
    return unexpected{where + ".deferred: missing (null when not deferred)"};
  if (!deferred.is_null()) {
    auto d = read_deferral(deferred, where + ".deferred");
    if (!d)
      return unexpected{d.error()};
    out.deferred = std::move(*d);
  }
  if (object["retry"].get(out.retry) != simdjson::SUCCESS)
    return unexpected{where + ".retry: missing or not a boolean"};
  if (auto lists = read_lists(object, where, out); !lists)
    return unexpected{lists.error()};
  return out;
}

} // namespace

void notes::defer(std::string name, std::string reason, std::string next_idea) {
  auto& entry = by_name_[std::move(name)];
  if (entry.deferred)
    entry.past_deferrals.push_back(std::move(*entry.deferred));
  entry.deferred = deferral{std::move(reason), std::move(next_idea), now_utc()};
  entry.retry = false;
}

void notes::annotate(std::string name, std::string text) {
  by_name_[std::move(name)].annotations.push_back({std::move(text), now_utc()});
}

void notes::mark_retry(std::string name) {
  auto& entry = by_name_[std::move(name)];
  if (entry.deferred) {
    entry.past_deferrals.push_back(std::move(*entry.deferred));
    entry.deferred.reset();
  }
  entry.retry = true;
}

void notes::clear_retry(std::string name) {
  if (auto it = by_name_.find(name); it != by_name_.end())
    it->second.retry = false;
}

void notes::add_backlog(std::string name, std::string idea) {
  by_name_[std::move(name)].backlog.push_back(std::move(idea));
}

const parameter_notes* notes::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &it->second;
}

bool notes::is_deferred(std::string_view name) const {
  const auto* entry = find(name);
  return entry != nullptr && entry->deferred.has_value();
}

bool notes::retry_requested(std::string_view name) const {
  const auto* entry = find(name);
  return entry != nullptr && entry->retry;
}

std::string notes::describe(std::string_view name) const {
  const auto* entry = find(name);
  if (entry == nullptr)
    return {};
  std::string out;
  if (entry->deferred)
    out += "deferred " + entry->deferred->time_utc + ": " + entry->deferred->reason +
           "; next idea: " + entry->deferred->next_idea + "\n";
  if (entry->retry)
    out += "retry requested\n";
  for (const auto& d : entry->past_deferrals)
    out += "earlier deferral " + d.time_utc + ": " + d.reason + "; next idea: " + d.next_idea + "\n";
  for (const auto& a : entry->annotations)
    out += "note " + a.time_utc + ": " + a.text + "\n";
  for (const auto& idea : entry->backlog)
    out += "backlog: " + idea + "\n";
  return out;
}

std::string notes::to_json() const {
  json::writer w;
  w.begin_object().key("schema").value(schema_version).key("parameters").begin_object();
  for (const auto& [name, entry] : by_name_) {
    w.key(name);
    write_parameter(w, entry);
  }
  w.end_object().end_object();
  return std::move(w).str() + "\n";
}

expected<notes, std::string> notes::from_json(std::string_view text) {
  simdjson::dom::parser parser;
  element root;
  if (parser.parse(simdjson::padded_string{text}).get(root) != simdjson::SUCCESS ||
      !root.is_object())
    return unexpected{std::string{"not a JSON object"}};
  std::int64_t schema = 0;
  if (root["schema"].get(schema) != simdjson::SUCCESS || schema != schema_version)
    return unexpected{"schema: expected " + std::to_string(schema_version)};
  simdjson::dom::object parameters;
  if (root["parameters"].get(parameters) != simdjson::SUCCESS)
    return unexpected{std::string{"parameters: missing or not an object"}};
  notes out;
  for (auto field : parameters) {
    const std::string name{field.key};
    auto entry = read_parameter(field.value, "parameters." + name);
    if (!entry)
      return unexpected{entry.error()};
    out.by_name_.emplace(name, std::move(*entry));
  }
  return out;
}

expected<notes, std::string> notes::load(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec)
    return notes{};
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return unexpected{path.string() + ": cannot read the calibrate notes"};
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = from_json(text.str());
  if (!parsed)
    return unexpected{path.string() + ": " + parsed.error()};
  return parsed;
}

expected<void, std::string> notes::save(const std::filesystem::path& path) const {
  return files::write_file_atomically(path, to_json());
}

} // namespace warpforge::calibrate
