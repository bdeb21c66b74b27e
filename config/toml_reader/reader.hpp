#pragma once
// The one TOML reader of the project: problem and campaign specs (config/) and the data tables of
// sass/ and diagnosis/ (and users' copies of them) are read through it. Typed access to a parsed
// document that records a placed_error (file, line, column, dotted key, hint) for every missing,
// mistyped or unknown entry instead of stopping at the first.
//
//   toml_reader::placed_errors errors;
//   auto text = toml_reader::read_file(path, "the rule matrix");        // or an error naming why
//   auto root = toml_reader::parse(*text, path.string());               // or the syntax error
//   toml_reader::reader r{path.string(), errors};
//   r.check_keys(*root, "", known_keys);
//   auto id = r.string(*root, "", "id", toml_reader::presence::required);
//
// It brings in toml++: include it from .cpp files only, so toml++ stays out of public headers.

#include "foundation/expected/expected.hpp"
#include "config/toml_reader/placed_error.hpp"

#include <toml++/toml.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::toml_reader {

enum class presence : std::uint8_t { required, optional };

/// "kernel" + "source" -> "kernel.source"; "" + "name" -> "name".
std::string join_key(std::string_view path, std::string_view key);
/// "args" + 2 -> "args[2]".
std::string index_key(std::string_view path, std::size_t index);

/// "a string", "an integer", ...: what a node is, for messages.
std::string_view describe_type(const toml::node& node);

place place_of(const toml::source_region& region);
/// The place of the character at 1-based `column` of the text of a one-line string value
/// (an expression, a template): its line, and the column after the opening quote. Exact for
/// strings written without escapes, which is how such values are written.
place place_in_string(const toml::node& string_value, std::uint32_t column);

/// The whole file as text, or why it cannot be read: "no such file", "not a regular file", or
/// the system's reason ("Permission denied").
expected<std::string, std::string> read_text(const std::filesystem::path& path);

/// read_text for a file being loaded: a failure is the load's error, naming the file (line 0),
/// `what` it is and why: "rules.toml: cannot read the rule matrix: no such file (hint: ...)".
expected<std::string, placed_error> read_file(const std::filesystem::path& path,
                                              std::string_view what);

/// The document, or its TOML syntax error placed in `file`.
expected<toml::table, placed_error> parse(std::string_view text, const std::string& file);

/// A string value with the place it was written, for errors found after reading it.
struct placed_string {
  std::string value;
  place at;
};

class reader {
public:
  reader(std::string file, placed_errors& errors) : file_(std::move(file)), errors_(errors) {}

  const std::string& file() const { return file_; }
  placed_errors& errors() { return errors_; }

  /// The keys of the root table: an unknown key in a sub-table that is one of these gets a hint
  /// (in TOML, keys written after a [header] belong to that table, not to the root).
  void set_root_keys(std::span<const std::string_view> keys) { root_keys_ = keys; }

  void error(place at, std::string key, std::string message, std::string hint = {});
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
  std::optional<bool> boolean(const toml::table& table, std::string_view path, std::string_view key,
                              presence need);
  const toml::table* table(const toml::table& parent, std::string_view path, std::string_view key,
                           presence need);
  const toml::array* array(const toml::table& parent, std::string_view path, std::string_view key,
                           presence need);
  /// An array of strings, each with its place; nullopt when absent, or when it is not an array
  /// or an entry is not a string (each such entry is reported).
  std::optional<std::vector<placed_string>> strings(const toml::table& table, std::string_view path,
                                                    std::string_view key, presence need);
  /// The entries of an array of tables (`[[key]]` blocks), in file order; empty when absent.
  /// An entry that is not a table is reported and left out.
  std::vector<const toml::table*> tables(const toml::table& parent, std::string_view path,
                                         std::string_view key, presence need);

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
    unknown_value(place_of(node->source()), full_key, text->get(), views);
    return std::nullopt;
  }

  /// "unknown value 'x'; expected one of a, b or c", with `hint`, else a "did you mean" when a
  /// value is close.
  void unknown_value(place at, std::string key, std::string_view value,
                     std::span<const std::string_view> alternatives, std::string hint = {});

private:
  // "missing required key 'key' in [path] (expected <what>)", placed at the table.
  void missing(const toml::table& table, std::string_view path, std::string_view key,
               std::string_view expected_what, std::string hint);

  std::string file_;
  placed_errors& errors_;
  std::span<const std::string_view> root_keys_;
};

} // namespace warpforge::toml_reader
