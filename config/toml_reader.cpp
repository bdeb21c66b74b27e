#include "config/toml_reader.hpp"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

namespace warpforge::config::detail {

std::string join_key(std::string_view path, std::string_view key) {
  if (path.empty())
    return std::string{key};
  return std::string{path} + "." + std::string{key};
}

std::string index_key(std::string_view path, std::size_t index) {
  return std::string{path} + "[" + std::to_string(index) + "]";
}

std::string_view describe_type(const toml::node& node) {
  switch (node.type()) {
  case toml::node_type::table: return "a table";
  case toml::node_type::array: return "an array";
  case toml::node_type::string: return "a string";
  case toml::node_type::integer: return "an integer";
  case toml::node_type::floating_point: return "a float";
  case toml::node_type::boolean: return "a boolean";
  case toml::node_type::date: return "a date";
  case toml::node_type::time: return "a time";
  case toml::node_type::date_time: return "a date-time";
  case toml::node_type::none: return "nothing";
  }
  return "an unknown value";
}

spec_place place_of(const toml::source_region& region) {
  return {region.begin.line, region.begin.column};
}

expected<toml::table, spec_error> parse_toml(std::string_view text, const std::string& file) {
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, std::string_view{file});
  } catch (const toml::parse_error& failure) {
    const auto place = place_of(failure.source());
    return unexpected(spec_error{file, place.line, place.column, "",
                                 "TOML syntax error: " + std::string{failure.description()},
                                 "the file must be valid TOML 1.0 (https://toml.io)"});
  }
#else
  auto parsed = toml::parse(text, std::string_view{file});
  if (parsed)
    return std::move(parsed).table();
  const auto& failure = parsed.error();
  const auto place = place_of(failure.source());
  return unexpected(spec_error{file, place.line, place.column, "",
                               "TOML syntax error: " + std::string{failure.description()},
                               "the file must be valid TOML 1.0 (https://toml.io)"});
#endif
}

void toml_reader::error(spec_place at, std::string key, std::string message, std::string hint) {
  errors_.push_back(
    {file_, at.line, at.column, std::move(key), std::move(message), std::move(hint)});
}

void toml_reader::error(const toml::source_region& at, std::string key, std::string message,
                        std::string hint) {
  error(place_of(at), std::move(key), std::move(message), std::move(hint));
}

void toml_reader::check_keys(const toml::table& table, std::string_view path,
                             std::span<const std::string_view> known) {
  for (const auto& [key, node] : table) {
    const std::string_view name = key.str();
    bool found = false;
    for (const auto candidate : known)
      found = found || candidate == name;
    if (found)
      continue;
    std::string hint;
    const bool root_key =
      !path.empty() && std::find(root_keys_.begin(), root_keys_.end(), name) != root_keys_.end();
    if (root_key)
      hint = "'" + std::string{name} + "' is a top-level key: move it above the first [table] "
             "header (in TOML, keys after a header belong to that table)";
    else if (auto match = closest_match(name, known))
      hint = "did you mean '" + *match + "'?";
    else if (known.empty())
      hint = "this table takes no keys";
    else
      hint = "known keys: " + join_alternatives(known);
    error(key.source(), join_key(path, name), "unknown key '" + std::string{name} + "'",
          std::move(hint));
  }
}

const toml::node* toml_reader::find(const toml::table& table, std::string_view path,
                                    std::string_view key, presence need,
                                    std::string_view expected_what) {
  const toml::node* node = table.get(key);
  if (node == nullptr && need == presence::required) {
    const std::string where = path.empty() ? std::string{"the file"} : "[" + std::string{path} + "]";
    error(table.source(), join_key(path, key),
          "missing required key '" + std::string{key} + "' in " + where + " (expected " +
            std::string{expected_what} + ")",
          "add " + std::string{key} + " = ...");
  }
  return node;
}

void toml_reader::wrong_type(const toml::node& node, const std::string& key,
                             std::string_view expected_what, std::string hint) {
  error(node.source(), key,
        "expected " + std::string{expected_what} + ", found " + std::string{describe_type(node)},
        std::move(hint));
}

std::optional<std::string> toml_reader::string(const toml::table& table, std::string_view path,
                                               std::string_view key, presence need) {
  const toml::node* node = find(table, path, key, need, "a string");
  if (node == nullptr)
    return std::nullopt;
  if (const auto* text = node->as_string())
    return text->get();
  wrong_type(*node, join_key(path, key), "a string", "quote it: \"...\"");
  return std::nullopt;
}

std::optional<std::int64_t> toml_reader::integer(const toml::table& table, std::string_view path,
                                                 std::string_view key, presence need) {
  const toml::node* node = find(table, path, key, need, "an integer");
  if (node == nullptr)
    return std::nullopt;
  if (const auto* value = node->as_integer())
    return value->get();
  wrong_type(*node, join_key(path, key), "an integer");
  return std::nullopt;
}

std::optional<double> toml_reader::number(const toml::table& table, std::string_view path,
                                          std::string_view key, presence need) {
  const toml::node* node = find(table, path, key, need, "a number");
  if (node == nullptr)
    return std::nullopt;
  if (const auto* value = node->as_floating_point())
    return value->get();
  if (const auto* value = node->as_integer())
    return static_cast<double>(value->get());
  wrong_type(*node, join_key(path, key), "a number");
  return std::nullopt;
}

std::optional<bool> toml_reader::boolean(const toml::table& table, std::string_view path,
                                         std::string_view key, presence need) {
  const toml::node* node = find(table, path, key, need, "a boolean");
  if (node == nullptr)
    return std::nullopt;
  if (const auto* value = node->as_boolean())
    return value->get();
  wrong_type(*node, join_key(path, key), "a boolean", "write true or false, unquoted");
  return std::nullopt;
}

const toml::table* toml_reader::table(const toml::table& parent, std::string_view path,
                                      std::string_view key, presence need) {
  const toml::node* node = find(parent, path, key, need, "a table");
  if (node == nullptr)
    return nullptr;
  if (const auto* value = node->as_table())
    return value;
  wrong_type(*node, join_key(path, key), "a table",
             "write [" + join_key(path, key) + "] or " + std::string{key} + " = { ... }");
  return nullptr;
}

const toml::array* toml_reader::array(const toml::table& parent, std::string_view path,
                                      std::string_view key, presence need) {
  const toml::node* node = find(parent, path, key, need, "an array");
  if (node == nullptr)
    return nullptr;
  if (const auto* value = node->as_array())
    return value;
  wrong_type(*node, join_key(path, key), "an array", "write [ ... ]");
  return nullptr;
}

void toml_reader::report_unknown_name(const toml::node& node, const std::string& key,
                                      std::string_view value,
                                      std::span<const std::string_view> alternatives,
                                      std::string extra_hint) {
  std::string hint;
  if (auto match = closest_match(value, alternatives))
    hint = "did you mean '" + *match + "'?";
  if (!extra_hint.empty())
    hint = extra_hint;
  error(node.source(), key,
        "unknown value '" + std::string{value} + "'; expected one of " +
          join_alternatives(alternatives),
        std::move(hint));
}

bool is_identifier(std::string_view text) {
  if (text.empty())
    return false;
  if (std::isalpha(static_cast<unsigned char>(text.front())) == 0 && text.front() != '_')
    return false;
  for (const char c : text)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_')
      return false;
  return true;
}

} // namespace warpforge::config::detail
