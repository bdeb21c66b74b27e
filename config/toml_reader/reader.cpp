#include "config/toml_reader/reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

namespace warpforge::toml_reader {

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

place place_of(const toml::source_region& region) {
  return {region.begin.line, region.begin.column};
}

place place_in_string(const toml::node& string_value, std::uint32_t column) {
  place at = place_of(string_value.source());
  // The region starts at the opening quote: the text's column 1 is one further.
  if (at.column > 0 && column > 0)
    at.column += column;
  return at;
}

expected<std::string, std::string> read_text(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status))
    return unexpected(std::string{"no such file"});
  if (!std::filesystem::is_regular_file(status))
    return unexpected(std::string{"not a regular file"});
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return unexpected(std::string{std::strerror(errno)});
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return unexpected(std::string{"reading failed"});
  return std::move(text).str();
}

expected<std::string, placed_error> read_file(const std::filesystem::path& path,
                                              std::string_view what) {
  auto text = read_text(path);
  if (!text)
    return unexpected(placed_error{path.string(), 0, 0, "",
                                   "cannot read " + std::string{what} + ": " + text.error(),
                                   "check that the file exists and is readable"});
  return std::move(*text);
}

expected<toml::table, placed_error> parse(std::string_view text, const std::string& file) {
  const auto syntax_error = [&](const toml::parse_error& failure) {
    const place at = place_of(failure.source());
    return unexpected(placed_error{file, at.line, at.column, "",
                                   "TOML syntax error: " + std::string{failure.description()},
                                   "the file must be valid TOML 1.0 (https://toml.io)"});
  };
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, std::string_view{file});
  } catch (const toml::parse_error& failure) {
    return syntax_error(failure); // toml++ built with exceptions reports syntax only this way
  }
#else
  auto parsed = toml::parse(text, std::string_view{file});
  if (parsed)
    return std::move(parsed).table();
  return syntax_error(parsed.error());
#endif
}

void reader::error(place at, std::string key, std::string message, std::string hint) {
  errors_.push_back(
    {file_, at.line, at.column, std::move(key), std::move(message), std::move(hint)});
}

void reader::error(const toml::source_region& at, std::string key, std::string message,
                   std::string hint) {
  error(place_of(at), std::move(key), std::move(message), std::move(hint));
}

void reader::check_keys(const toml::table& table, std::string_view path,
                        std::span<const std::string_view> known) {
  for (const auto& [key, node] : table) {
    const std::string_view name = key.str();
    if (std::find(known.begin(), known.end(), name) != known.end())
      continue;
    std::string hint;
    const bool root_key =
      !path.empty() && std::find(root_keys_.begin(), root_keys_.end(), name) != root_keys_.end();
    if (root_key)
      hint = "'" + std::string{name} +
             "' is a top-level key: move it above the first [table] "
             "header (in TOML, keys after a header belong to that table)";
    else if (known.empty())
      hint = "this table takes no keys";
    else
      hint = did_you_mean(name, known);
    if (hint.empty())
      hint = "known keys: " + join_alternatives(known);
    error(key.source(), join_key(path, name), "unknown key '" + std::string{name} + "'",
          std::move(hint));
  }
}

void reader::missing(const toml::table& table, std::string_view path, std::string_view key,
                     std::string_view expected_what, std::string hint) {
  // A table's header reads [name]; an entry of an array of tables is named by its index.
  const std::string where = path.empty()         ? std::string{"the file"}
                            : path.back() == ']' ? std::string{path}
                                                 : "[" + std::string{path} + "]";
  error(table.source(), join_key(path, key),
        "missing required key '" + std::string{key} + "' in " + where + " (expected " +
          std::string{expected_what} + ")",
        std::move(hint));
}

const toml::node* reader::find(const toml::table& table, std::string_view path,
                               std::string_view key, presence need,
                               std::string_view expected_what) {
  const toml::node* node = table.get(key);
  if (node == nullptr && need == presence::required)
    missing(table, path, key, expected_what, "add " + std::string{key} + " = ...");
  return node;
}

void reader::wrong_type(const toml::node& node, const std::string& key,
                        std::string_view expected_what, std::string hint) {
  error(node.source(), key,
        "expected " + std::string{expected_what} + ", found " + std::string{describe_type(node)},
        std::move(hint));
}

namespace {

// The value at `key` as `get` reads it, or nullopt: absent (reported when required), or of
// another type (reported as "expected <what>, found <type>", with `hint`).
template <class Get>
auto read_value(reader& r, const toml::table& table, std::string_view path, std::string_view key,
                presence need, std::string_view what, std::string hint, Get get)
  -> decltype(get(std::declval<const toml::node&>())) {
  const toml::node* node = r.find(table, path, key, need, what);
  if (node == nullptr)
    return std::nullopt;
  if (auto value = get(*node))
    return value;
  r.wrong_type(*node, join_key(path, key), what, std::move(hint));
  return std::nullopt;
}

} // namespace

std::optional<std::string> reader::string(const toml::table& table, std::string_view path,
                                          std::string_view key, presence need) {
  return read_value(*this, table, path, key, need, "a string", "quote it: \"...\"",
                    [](const toml::node& node) { return node.value_exact<std::string>(); });
}

std::optional<std::int64_t> reader::integer(const toml::table& table, std::string_view path,
                                            std::string_view key, presence need) {
  return read_value(*this, table, path, key, need, "an integer", "",
                    [](const toml::node& node) { return node.value_exact<std::int64_t>(); });
}

std::optional<double> reader::number(const toml::table& table, std::string_view path,
                                     std::string_view key, presence need) {
  // TOML integers are numbers too: `bad = 3` means 3.0.
  return read_value(*this, table, path, key, need, "a number", "",
                    [](const toml::node& node) -> std::optional<double> {
                      if (const auto* value = node.as_floating_point())
                        return value->get();
                      if (const auto* value = node.as_integer())
                        return static_cast<double>(value->get());
                      return std::nullopt;
                    });
}

std::optional<bool> reader::boolean(const toml::table& table, std::string_view path,
                                    std::string_view key, presence need) {
  return read_value(*this, table, path, key, need, "a boolean", "write true or false, unquoted",
                    [](const toml::node& node) { return node.value_exact<bool>(); });
}

const toml::table* reader::table(const toml::table& parent, std::string_view path,
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

const toml::array* reader::array(const toml::table& parent, std::string_view path,
                                 std::string_view key, presence need) {
  const toml::node* node = find(parent, path, key, need, "an array");
  if (node == nullptr)
    return nullptr;
  if (const auto* value = node->as_array())
    return value;
  wrong_type(*node, join_key(path, key), "an array", "write [ ... ]");
  return nullptr;
}

std::optional<std::vector<placed_string>> reader::strings(const toml::table& table,
                                                          std::string_view path,
                                                          std::string_view key, presence need) {
  const toml::node* node = find(table, path, key, need, "an array of strings");
  if (node == nullptr)
    return std::nullopt;
  const std::string full_key = join_key(path, key);
  const auto* items = node->as_array();
  if (items == nullptr) {
    wrong_type(*node, full_key, "an array of strings", "write [\"...\", \"...\"]");
    return std::nullopt;
  }
  std::vector<placed_string> out;
  bool all_strings = true;
  for (std::size_t i = 0; i < items->size(); ++i) {
    const toml::node& item = *items->get(i);
    if (const auto* text = item.as_string()) {
      out.push_back({text->get(), place_of(item.source())});
    } else {
      wrong_type(item, index_key(full_key, i), "a string", "quote it: \"...\"");
      all_strings = false;
    }
  }
  if (!all_strings)
    return std::nullopt;
  return out;
}

std::vector<const toml::table*> reader::tables(const toml::table& parent, std::string_view path,
                                               std::string_view key, presence need) {
  std::vector<const toml::table*> out;
  const std::string full_key = join_key(path, key);
  const std::string blocks = "[[" + full_key + "]] entries";
  const toml::node* node = parent.get(key);
  if (node == nullptr) {
    if (need == presence::required)
      missing(parent, path, key, blocks, "add at least one [[" + full_key + "]] entry");
    return out;
  }
  const auto* items = node->as_array();
  if (items == nullptr) {
    wrong_type(*node, full_key, blocks, "write each entry as [[" + full_key + "]]");
    return out;
  }
  for (std::size_t i = 0; i < items->size(); ++i) {
    const toml::node& item = *items->get(i);
    if (const auto* entry = item.as_table())
      out.push_back(entry);
    else
      wrong_type(item, index_key(full_key, i), "a table",
                 "write each entry as [[" + full_key + "]]");
  }
  return out;
}

void reader::unknown_value(place at, std::string key, std::string_view value,
                           std::span<const std::string_view> alternatives, std::string hint) {
  if (hint.empty())
    hint = did_you_mean(value, alternatives);
  error(at, std::move(key),
        "unknown value '" + std::string{value} + "'; expected one of " +
          join_alternatives(alternatives),
        std::move(hint));
}

} // namespace warpforge::toml_reader
