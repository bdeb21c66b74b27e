#include "sass/data_reader.hpp"

#include <fstream>
#include <sstream>

namespace warpforge::sass::detail {
namespace {

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

} // namespace

std::optional<std::string> read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  return std::move(content).str();
}

std::string index_key(std::string_view path, std::size_t index) {
  return std::string{path} + "[" + std::to_string(index) + "]";
}

std::string join_key(std::string_view path, std::string_view key) {
  if (path.empty())
    return std::string{key};
  return std::string{path} + "." + std::string{key};
}

std::optional<toml::table> data_reader::parse(std::string_view text) {
  constexpr std::string_view hint = "the file must be valid TOML 1.0 (https://toml.io)";
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, std::string_view{file_});
  } catch (const toml::parse_error& failure) {
    error(failure.source().begin.line, failure.source().begin.column, "",
          "TOML syntax error: " + std::string{failure.description()}, std::string{hint});
    return std::nullopt;
  }
#else
  auto parsed = toml::parse(text, std::string_view{file_});
  if (parsed)
    return std::move(parsed).table();
  const auto& failure = parsed.error();
  error(failure.source().begin.line, failure.source().begin.column, "",
        "TOML syntax error: " + std::string{failure.description()}, std::string{hint});
  return std::nullopt;
#endif
}

void data_reader::error(const toml::node& at, std::string key, std::string message,
                        std::string hint) {
  error(at.source().begin.line, at.source().begin.column, std::move(key), std::move(message),
        std::move(hint));
}

void data_reader::error(std::uint32_t line, std::uint32_t column, std::string key,
                        std::string message, std::string hint) {
  errors_.push_back({file_, line, column, std::move(key), std::move(message), std::move(hint)});
}

void data_reader::check_keys(const toml::table& table, std::string_view path,
                             std::span<const std::string_view> known) {
  for (const auto& [key, node] : table) {
    const std::string_view name = key.str();
    bool found = false;
    for (const auto candidate : known)
      found = found || candidate == name;
    if (found)
      continue;
    std::string hint = "known keys: " + config::join_alternatives(known);
    if (auto close = config::closest_match(name, known))
      hint = "did you mean '" + *close + "'?";
    error(node, join_key(path, name), "unknown key", std::move(hint));
  }
}

const toml::node* data_reader::find(const toml::table& table, std::string_view path,
                                    std::string_view key, bool required, std::string_view what) {
  const toml::node* node = table.get(key);
  if (node == nullptr && required)
    error(table.source().begin.line, table.source().begin.column, join_key(path, key),
          "missing; expected " + std::string{what});
  return node;
}

std::optional<placed_string> data_reader::string(const toml::table& table, std::string_view path,
                                                 std::string_view key, bool required) {
  const toml::node* node = find(table, path, key, required, "a string");
  if (node == nullptr)
    return std::nullopt;
  const auto* text = node->as_string();
  if (text == nullptr) {
    error(*node, join_key(path, key),
          "expected a string, found " + std::string{describe_type(*node)});
    return std::nullopt;
  }
  return placed_string{text->get(), node->source().begin.line, node->source().begin.column};
}

std::optional<std::int64_t> data_reader::integer(const toml::table& table, std::string_view path,
                                                 std::string_view key, bool required) {
  const toml::node* node = find(table, path, key, required, "an integer");
  if (node == nullptr)
    return std::nullopt;
  if (const auto* value = node->as_integer())
    return value->get();
  error(*node, join_key(path, key),
        "expected an integer, found " + std::string{describe_type(*node)});
  return std::nullopt;
}

std::optional<double> data_reader::number(const toml::table& table, std::string_view path,
                                          std::string_view key, bool required) {
  const toml::node* node = find(table, path, key, required, "a number");
  if (node == nullptr)
    return std::nullopt;
  if (const auto* value = node->as_integer())
    return static_cast<double>(value->get());
  if (const auto* value = node->as_floating_point())
    return value->get();
  error(*node, join_key(path, key), "expected a number, found " + std::string{describe_type(*node)});
  return std::nullopt;
}

std::optional<std::vector<placed_string>> data_reader::strings(const toml::table& table,
                                                               std::string_view path,
                                                               std::string_view key,
                                                               bool required) {
  const toml::node* node = find(table, path, key, required, "an array of strings");
  if (node == nullptr)
    return std::nullopt;
  const auto* array = node->as_array();
  if (array == nullptr) {
    error(*node, join_key(path, key),
          "expected an array of strings, found " + std::string{describe_type(*node)});
    return std::nullopt;
  }
  std::vector<placed_string> values;
  bool all_strings = true;
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& item = *array->get(i);
    if (const auto* text = item.as_string()) {
      values.push_back({text->get(), item.source().begin.line, item.source().begin.column});
    } else {
      error(item, index_key(join_key(path, key), i),
            "expected a string, found " + std::string{describe_type(item)});
      all_strings = false;
    }
  }
  if (!all_strings)
    return std::nullopt;
  return values;
}

std::vector<const toml::table*> data_reader::tables(const toml::table& table,
                                                    std::string_view key, bool required) {
  std::vector<const toml::table*> result;
  const toml::node* node = find(table, "", key, required, "[[" + std::string{key} + "]] entries");
  if (node == nullptr)
    return result;
  const auto* array = node->as_array();
  if (array == nullptr) {
    error(*node, std::string{key},
          "expected [[" + std::string{key} + "]] entries, found " +
              std::string{describe_type(*node)});
    return result;
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& item = *array->get(i);
    if (const auto* entry = item.as_table())
      result.push_back(entry);
    else
      error(item, index_key(key, i), "expected a table, found " + std::string{describe_type(item)});
  }
  return result;
}

void data_reader::unknown_value(std::uint32_t line, std::uint32_t column, std::string key,
                                std::string_view value,
                                std::span<const std::string_view> alternatives) {
  std::string hint;
  if (auto close = config::closest_match(value, alternatives))
    hint = "did you mean '" + *close + "'?";
  error(line, column, std::move(key),
        "unknown value '" + std::string{value} + "' (expected " +
            config::join_alternatives(alternatives) + ")",
        std::move(hint));
}

} // namespace warpforge::sass::detail
