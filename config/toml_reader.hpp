#pragma once
// Typed access to a parsed TOML document that records a spec_error (with file, line, column and
// dotted key) for every missing, mistyped or unknown entry instead of stopping at the first. The
// one TOML reader of the project: specs (config/) and the data files of other libraries use it.
// Include it from .cpp files only (it brings in toml++).

#include "config/problem_spec.hpp"
#include "config/spec_error.hpp"

#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace warpforge::config::detail {

enum class presence : std::uint8_t { required, optional };

/// "kernel" + "source" -> "kernel.source"; "" + "name" -> "name".
std::string join_key(std::string_view path, std::string_view key);
/// "args" + 2 -> "args[2]".
std::string index_key(std::string_view path, std::size_t index);

/// "a string", "an integer", ...: what a node is, for messages.
std::string_view describe_type(const toml::node& node);

spec_place place_of(const toml::source_region& region);

/// The outcome of toml::parse: a table, or the syntax error as a spec_error.
expected<toml::table, spec_error> parse_toml(std::string_view text, const std::string& file);

class toml_reader {
public:
  toml_reader(std::string file, spec_errors& errors) : file_(std::move(file)), errors_(errors) {}

  const std::string& file() const { return file_; }

  /// The keys of the root table: an unknown key in a sub-table that is one of these gets a hint
  /// (in TOML, keys written after a [header] belong to that table, not to the root).
  void set_root_keys(std::span<const std::string_view> keys) { root_keys_ = keys; }
  spec_errors& errors() { return errors_; }

  void error(spec_place at, std::string key, std::string message, std::string hint = {});
  void error(const toml::source_region& at, std::string key, std::string message,
             std::string hint = {});

  /// Reports every key of `table` not in `known` (with a "did you mean" when one is close).
  /// `path` is the table's dotted key ("" for the root).
  void check_keys(const toml::table& table, std::string_view path,
                  std::span<const std::string_view> known);

  /// The node at `key`, or nullptr; reports a missing required key at the table's place.
  const toml::node* find(const toml::table& table, std::string_view path, std::string_view key,
                         presence need, std::string_view expected_what);

  std::optional<std::string> string(const toml::table& table, std::string_view path,
                                    std::string_view key, presence need);
  std::optional<std::int64_t> integer(const toml::table& table, std::string_view path,
                                      std::string_view key, presence need);
  /// A float; TOML integers are accepted and converted.
  std::optional<double> number(const toml::table& table, std::string_view path,
                               std::string_view key, presence need);
  std::optional<bool> boolean(const toml::table& table, std::string_view path,
                              std::string_view key, presence need);
  const toml::table* table(const toml::table& parent, std::string_view path, std::string_view key,
                           presence need);
  const toml::array* array(const toml::table& parent, std::string_view path, std::string_view key,
                           presence need);

  /// Reports `node` as the wrong type: "expected <what>, found <type>".
  void wrong_type(const toml::node& node, const std::string& key, std::string_view expected_what,
                  std::string hint = {});

  /// A string naming one value of an enum; unknown names list the alternatives.
  template <class Enum, std::size_t N>
  std::optional<Enum> enumeration(const toml::table& table, std::string_view path,
                                  std::string_view key, presence need, const Enum (&all)[N],
                                  std::optional<Enum> (*from_string)(std::string_view)) {
    const toml::node* node = find(table, path, key, need, "a string");
    if (node == nullptr)
      return std::nullopt;
    std::string names[N];
    std::string_view views[N];
    for (std::size_t i = 0; i < N; ++i) {
      names[i] = std::string{to_string(all[i])};
      views[i] = names[i];
    }
    const std::string full_key = join_key(path, key);
    const auto* text = node->as_string();
    if (text == nullptr) {
      wrong_type(*node, full_key, "a string: " + join_alternatives(views));
      return std::nullopt;
    }
    if (auto value = from_string(text->get()))
      return value;
    report_unknown_name(*node, full_key, text->get(), views);
    return std::nullopt;
  }

  /// "unknown value 'x'; expected one of a, b, c" with a "did you mean" when close.
  void report_unknown_name(const toml::node& node, const std::string& key, std::string_view value,
                           std::span<const std::string_view> alternatives,
                           std::string extra_hint = {});

private:
  std::string file_;
  spec_errors& errors_;
  std::span<const std::string_view> root_keys_;
};

/// Whether `text` is a C identifier (names of dims, tunables, args, entry points).
bool is_identifier(std::string_view text);

} // namespace warpforge::config::detail
