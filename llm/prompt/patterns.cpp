#include "llm/prompt/patterns.hpp"

#include "foundation/files/atomic_write.hpp"

#include "foundation/json/writer.hpp"
#include "llm/prompt/sections.hpp"

#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

namespace warpforge::llm {

namespace {

constexpr std::int64_t schema_version = 1;

struct group {
  std::size_t accepted = 0;
  const pattern_entry* best = nullptr; // the entry with the highest speed-up
};

/// "memory.a + memory.b (memory_bound)": methods sorted, so claim order does not split a group.
std::string group_name(const pattern_entry& e) {
  auto methods = e.methods;
  std::sort(methods.begin(), methods.end());
  std::string name;
  for (const auto& m : methods)
    name += (name.empty() ? "" : " + ") + m;
  if (name.empty())
    name = "no method claimed";
  return name + " (" + (e.bottleneck.empty() ? std::string{"bottleneck unknown"} : e.bottleneck) + ")";
}

std::string group_line(const std::string& name, const group& g) {
  std::string line = name + ": " + std::to_string(g.accepted) + " accepted, best " + format_speedup(g.best->speedup) +
                     " (" + g.best->kernel;
  if (!g.best->memo.empty())
    line += ": " + g.best->memo;
  return line + ")\n";
}

expected<pattern_entry, std::string> parse_entry(simdjson::dom::element element, const std::string& where) {
  simdjson::dom::object object;
  if (element.get(object) != simdjson::SUCCESS)
    return unexpected{where + ": not an object"};
  pattern_entry e;
  std::string_view text;
  if (object["kernel"].get(text) != simdjson::SUCCESS)
    return unexpected{where + ".kernel: missing or not a string"};
  e.kernel = std::string{text};
  if (object["bottleneck"].get(text) != simdjson::SUCCESS)
    return unexpected{where + ".bottleneck: missing or not a string"};
  e.bottleneck = std::string{text};
  if (object["speedup"].get(e.speedup) != simdjson::SUCCESS)
    return unexpected{where + ".speedup: missing or not a number"};
  if (object["memo"].get(text) != simdjson::SUCCESS)
    return unexpected{where + ".memo: missing or not a string"};
  e.memo = std::string{text};
  simdjson::dom::array methods;
  if (object["methods"].get(methods) != simdjson::SUCCESS)
    return unexpected{where + ".methods: missing or not an array"};
  for (auto method : methods) {
    if (method.get(text) != simdjson::SUCCESS)
      return unexpected{where + ".methods: an element is not a string"};
    e.methods.emplace_back(text);
  }
  return e;
}

} // namespace

void pattern_library::add(pattern_entry entry) {
  if (!std::isfinite(entry.speedup))
    return; // JSON cannot hold it, and it ranks nothing
  if (std::find(entries_.begin(), entries_.end(), entry) == entries_.end())
    entries_.push_back(std::move(entry));
}

std::string pattern_library::render(std::size_t max_lines) const {
  std::map<std::string, group> groups;
  for (const auto& e : entries_) {
    auto& g = groups[group_name(e)];
    ++g.accepted;
    if (!g.best || e.speedup > g.best->speedup)
      g.best = &e;
  }
  std::vector<std::pair<std::string, group>> ordered(groups.begin(), groups.end());
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    if (a.second.accepted != b.second.accepted)
      return a.second.accepted > b.second.accepted;
    return a.second.best->speedup > b.second.best->speedup;
  });
  std::string out;
  for (std::size_t i = 0; i < ordered.size() && i < max_lines; ++i)
    out += group_line(ordered[i].first, ordered[i].second);
  if (ordered.size() > max_lines)
    out += "(" + std::to_string(ordered.size() - max_lines) + " more groups left out)\n";
  return out;
}

std::string pattern_library::to_json() const {
  json::writer w;
  w.begin_object().key("schema").value(schema_version).key("patterns").begin_array();
  for (const auto& e : entries_) {
    w.begin_object().key("kernel").value(e.kernel).key("bottleneck").value(e.bottleneck);
    w.key("methods").begin_array();
    for (const auto& m : e.methods)
      w.value(m);
    w.end_array().key("speedup").value(e.speedup).key("memo").value(e.memo).end_object();
  }
  w.end_array().end_object();
  return std::move(w).str() + "\n";
}

expected<pattern_library, std::string> pattern_library::from_json(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::dom::object root;
  if (parser.parse(simdjson::padded_string{text}).get(root) != simdjson::SUCCESS)
    return unexpected{std::string{"not a JSON object"}};
  std::int64_t schema = 0;
  if (root["schema"].get(schema) != simdjson::SUCCESS || schema != schema_version)
    return unexpected{"schema: expected " + std::to_string(schema_version)};
  simdjson::dom::array patterns;
  if (root["patterns"].get(patterns) != simdjson::SUCCESS)
    return unexpected{std::string{"patterns: missing or not an array"}};
  pattern_library library;
  std::size_t index = 0;
  for (auto element : patterns) {
    auto entry = parse_entry(element, "patterns[" + std::to_string(index++) + "]");
    if (!entry)
      return unexpected{entry.error()};
    library.add(std::move(*entry));
  }
  return library;
}

expected<pattern_library, std::string> pattern_library::load(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec)
    return pattern_library{};
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return unexpected{path.string() + ": cannot read the pattern library"};
  std::stringstream text;
  text << in.rdbuf();
  auto library = from_json(text.str());
  if (!library)
    return unexpected{path.string() + ": " + library.error()};
  return library;
}

expected<void, std::string> pattern_library::save(const std::filesystem::path& path) const {
  return files::write_file_atomically(path, to_json());
}

} // namespace warpforge::llm
