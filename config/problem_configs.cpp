#include "config/problem_configs.hpp"

#include "config/configs_reader.hpp"
#include "config/spec_file.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace warpforge::config {

std::vector<problem_config> problem_configs(const problem_spec& spec) {
  expression::integer_values defaults;
  for (const auto& dim : spec.dims)
    defaults[dim.name] = dim.value;
  if (spec.configs.empty())
    return {problem_config{spec.name, 1.0, defaults, ""}};
  double total = 0;
  for (const auto& c : spec.configs)
    total += c.weight;
  std::vector<problem_config> out;
  for (const auto& c : spec.configs) {
    problem_config config{c.name, c.weight / total, defaults,
                          c.file + ":" + std::to_string(c.place.line)};
    for (const auto& dim : c.dims)
      config.dims[dim.name] = dim.value;
    out.push_back(std::move(config));
  }
  return out;
}

namespace detail {

namespace {

using toml_reader::index_key;
using toml_reader::join_key;
using toml_reader::presence;

constexpr std::string_view config_keys[] = {"name", "weight", "dims"};
constexpr std::string_view configs_file_keys[] = {"configs"};
constexpr std::size_t max_config_name = 80; // characters: a name is a label in tables

bool is_label(std::string_view name) {
  return !name.empty() && name.size() <= max_config_name &&
         std::none_of(name.begin(), name.end(), [](char c) {
           return static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '|';
         });
}

// One [[configs]] entry; `index` is its place among them (0-based).
config_spec read_config(const toml::table& table, const std::string& path, std::size_t index,
                        toml_reader::reader& r, const problem_spec& spec,
                        const std::set<std::string, std::less<>>& broken_names) {
  r.check_keys(table, path, config_keys);
  config_spec out;
  out.file = r.file();
  out.place = toml_reader::place_of(table.source());
  out.name = "config-" + std::to_string(index + 1);
  if (auto name = r.string(table, path, "name", presence::optional)) {
    if (is_label(*name))
      out.name = *name;
    else
      r.error(table.get("name")->source(), join_key(path, "name"),
              "'" + *name + "' is not a usable name",
              "1 to 80 printable characters, no '|', e.g. name = \"8192x8192\"");
  }
  if (auto weight = r.number(table, path, "weight", presence::optional)) {
    if (std::isfinite(*weight) && *weight > 0)
      out.weight = *weight;
    else
      r.error(table.get("weight")->source(), join_key(path, "weight"),
              "weight must be > 0, got " + std::to_string(*weight),
              "weights are relative (e.g. launches per run); they are normalised to sum to 1");
  }
  const auto* dims = r.table(table, path, "dims", presence::optional);
  if (dims == nullptr)
    return out;
  std::vector<std::string_view> declared;
  for (const auto& dim : spec.dims)
    declared.push_back(dim.name);
  for (const auto& [key, node] : *dims) {
    const std::string name{key.str()};
    const std::string full_key = join_key(join_key(path, "dims"), name);
    if (broken_names.contains(name))
      continue; // its declaration is reported already
    if (spec.find_dim(name) == nullptr) {
      auto hint = toml_reader::did_you_mean(name, declared);
      if (hint.empty())
        hint = declared.empty() ? "declare it under [dims] first"
                                : "a config sets dims declared under [dims]: " +
                                    toml_reader::join_alternatives(declared);
      r.error(key.source(), full_key, "'" + name + "' is not a dim of the problem", hint);
      continue;
    }
    const auto* value = node.as_integer();
    if (value == nullptr)
      r.wrong_type(node, full_key, "a positive integer", "dims = { N = 4096 }");
    else if (value->get() < 1)
      r.error(node.source(), full_key,
              "must be a positive integer, got " + std::to_string(value->get()),
              "a dim is a size: 1 or more");
    else
      out.dims.push_back({name, value->get(), toml_reader::place_of(key.source())});
  }
  // toml++ tables are sorted by key; keep the file's order.
  std::stable_sort(out.dims.begin(), out.dims.end(), [](const dim_spec& a, const dim_spec& b) {
    return std::pair{a.place.line, a.place.column} < std::pair{b.place.line, b.place.column};
  });
  return out;
}

// Every [[configs]] entry of `root`; at least one when `need` says so.
std::vector<config_spec> read_config_tables(const toml::table& root, presence need,
                                            toml_reader::reader& r, const problem_spec& spec,
                                            const std::set<std::string, std::less<>>& broken) {
  std::vector<config_spec> out;
  const auto tables = r.tables(root, "", "configs", need);
  std::map<std::string, std::size_t, std::less<>> seen;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const std::string path = index_key("configs", i);
    auto config = read_config(*tables[i], path, i, r, spec, broken);
    if (auto [it, fresh] = seen.emplace(config.name, i); !fresh) {
      const toml::node* name = tables[i]->get("name");
      r.error(name != nullptr ? name->source() : tables[i]->source(), join_key(path, "name"),
              "the config name '" + config.name + "' is used twice (also configs[" +
                std::to_string(it->second) + "])",
              "config names are unique");
      continue;
    }
    out.push_back(std::move(config));
  }
  return out;
}

// The configs of the file `configs_file` (the value of the spec's key at `at`).
void read_configs_file(const toml::node& at, toml_reader::reader& spec_reader, problem_spec& spec,
                       const std::set<std::string, std::less<>>& broken) {
  auto text = toml_reader::read_text(spec.configs_file);
  if (!text) {
    spec_reader.error(at.source(), "configs_file",
                      "cannot read the configs file " + spec.configs_file.string() + ": " +
                        text.error(),
                      "paths are relative to the folder of the spec file");
    return;
  }
  auto root = toml_reader::parse(*text, spec.configs_file.string());
  if (!root) {
    spec_reader.errors().push_back(std::move(root).error());
    return;
  }
  toml_reader::reader r{spec.configs_file.string(), spec_reader.errors()};
  r.check_keys(*root, "", configs_file_keys);
  spec.configs = read_config_tables(*root, presence::required, r, spec, broken);
}

} // namespace

void read_configs(const toml::table& root, toml_reader::reader& r, problem_spec& spec,
                  const std::set<std::string, std::less<>>& broken_names, bool read_file) {
  auto file = r.string(root, "", "configs_file", presence::optional);
  if (!file) {
    spec.configs = read_config_tables(root, presence::optional, r, spec, broken_names);
    return;
  }
  const toml::node& at = *root.get("configs_file");
  if (root.contains("configs")) {
    r.error(at.source(), "configs_file", "give [[configs]] or configs_file, not both",
            "keep the configurations in one place");
    return;
  }
  spec.configs_file = resolve_against(r.file(), *file);
  if (read_file)
    read_configs_file(at, r, spec, broken_names);
}

} // namespace detail

} // namespace warpforge::config
