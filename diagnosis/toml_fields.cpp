#include "diagnosis/toml_fields.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>

namespace warpforge::diagnosis::detail {

namespace {

std::string_view describe_type(const toml::node& node) {
  switch (node.type()) {
  case toml::node_type::table: return "a table";
  case toml::node_type::array: return "an array";
  case toml::node_type::string: return "a string";
  case toml::node_type::integer: return "an integer";
  case toml::node_type::floating_point: return "a float";
  case toml::node_type::boolean: return "a boolean";
  default: return "a date or time";
  }
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

} // namespace

expected<toml::table, data_error> parse_toml(std::string_view text, const std::string& file) {
  const std::string hint = "the file must be valid TOML 1.0 (https://toml.io)";
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, std::string_view{file});
  } catch (const toml::parse_error& failure) {
    return unexpected(data_error{file, failure.source().begin.line, failure.source().begin.column,
                                 "", "TOML syntax error: " + std::string{failure.description()},
                                 hint});
  }
#else
  auto parsed = toml::parse(text, std::string_view{file});
  if (parsed)
    return std::move(parsed).table();
  const auto& failure = parsed.error();
  return unexpected(data_error{file, failure.source().begin.line, failure.source().begin.column, "",
                               "TOML syntax error: " + std::string{failure.description()}, hint});
#endif
}

expected<std::string, data_error> read_data_file(const std::filesystem::path& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return unexpected(data_error{path.string(), 0, 0, "",
                                 std::string{"cannot read: "} + std::strerror(errno), ""});
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string index_key(std::string_view path, std::size_t index) {
  return std::string{path} + "[" + std::to_string(index) + "]";
}

std::string join_key(std::string_view path, std::string_view key) {
  if (path.empty())
    return std::string{key};
  return std::string{path} + "." + std::string{key};
}

std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string_view> candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = std::max<std::size_t>(1, word.size() / 3) + 1;
  for (const auto candidate : candidates) {
    const std::size_t d = edit_distance(word, candidate);
    if (d > 0 && d < best_distance) {
      best_distance = d;
      best = std::string{candidate};
    }
  }
  return best;
}

void toml_fields::error(const toml::source_region& at, std::string key, std::string message,
                        std::string hint, std::uint32_t column_offset) {
  const std::uint32_t column = at.begin.column == 0 ? 0 : at.begin.column + column_offset;
  errors_.push_back(
      {file_, at.begin.line, column, std::move(key), std::move(message), std::move(hint)});
}

void toml_fields::check_keys(const toml::table& table, std::string_view path,
                             std::span<const std::string_view> known) {
  for (const auto& [key, node] : table) {
    const std::string_view name = key.str();
    if (std::find(known.begin(), known.end(), name) != known.end())
      continue;
    std::string hint;
    if (auto close = closest_match(name, known))
      hint = "did you mean '" + *close + "'?";
    else {
      hint = "known keys: ";
      for (std::size_t i = 0; i < known.size(); ++i)
        hint += (i == 0 ? "" : ", ") + std::string{known[i]};
    }
    error(key.source(), join_key(path, name), "unknown key", hint);
  }
}

const toml::node* toml_fields::find(const toml::table& table, std::string_view path,
                                    std::string_view key, presence need,
                                    std::string_view expected_what) {
  const toml::node* node = table.get(key);
  if (node == nullptr && need == presence::required)
    error(table.source(), join_key(path, key),
          "missing; expected " + std::string{expected_what});
  return node;
}

std::optional<std::string> toml_fields::string(const toml::table& table, std::string_view path,
                                               std::string_view key, presence need) {
  const toml::node* node = find(table, path, key, need, "a string");
  if (node == nullptr)
    return std::nullopt;
  if (const auto* text = node->as_string())
    return text->get();
  error(node->source(), join_key(path, key),
        "expected a string, found " + std::string{describe_type(*node)});
  return std::nullopt;
}

std::optional<double> toml_fields::number(const toml::table& table, std::string_view path,
                                          std::string_view key, presence need) {
  const toml::node* node = find(table, path, key, need, "a number");
  if (node == nullptr)
    return std::nullopt;
  if (const auto* f = node->as_floating_point())
    return f->get();
  if (const auto* i = node->as_integer())
    return static_cast<double>(i->get());
  error(node->source(), join_key(path, key),
        "expected a number, found " + std::string{describe_type(*node)});
  return std::nullopt;
}

std::optional<std::int64_t> toml_fields::integer(const toml::table& table, std::string_view path,
                                                 std::string_view key, presence need) {
  const toml::node* node = find(table, path, key, need, "an integer");
  if (node == nullptr)
    return std::nullopt;
  if (const auto* i = node->as_integer())
    return i->get();
  error(node->source(), join_key(path, key),
        "expected an integer, found " + std::string{describe_type(*node)});
  return std::nullopt;
}

std::optional<std::vector<std::string>> toml_fields::strings(const toml::table& table,
                                                             std::string_view path,
                                                             std::string_view key, presence need) {
  const toml::node* node = find(table, path, key, need, "an array of strings");
  if (node == nullptr)
    return std::nullopt;
  const auto* items = node->as_array();
  if (items == nullptr) {
    error(node->source(), join_key(path, key),
          "expected an array of strings, found " + std::string{describe_type(*node)});
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (std::size_t i = 0; i < items->size(); ++i) {
    const toml::node& item = *items->get(i);
    if (const auto* text = item.as_string()) {
      out.push_back(text->get());
    } else {
      ok = false;
      error(item.source(), index_key(join_key(path, key), i),
            "expected a string, found " + std::string{describe_type(item)});
    }
  }
  if (!ok)
    return std::nullopt;
  return out;
}

const toml::array* toml_fields::tables(const toml::table& table, std::string_view path,
                                       std::string_view key, presence need) {
  const toml::node* node = find(table, path, key, need, "[[" + std::string{key} + "]] blocks");
  if (node == nullptr)
    return nullptr;
  const auto* items = node->as_array();
  if (items == nullptr || !items->is_array_of_tables()) {
    error(node->source(), join_key(path, key),
          "expected [[" + std::string{key} + "]] blocks, found " +
              std::string{describe_type(*node)});
    return nullptr;
  }
  return items;
}

} // namespace warpforge::diagnosis::detail
