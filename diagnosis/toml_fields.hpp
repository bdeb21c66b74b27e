#pragma once
// Internal to diagnosis/: typed reads from a parsed TOML document that record a data_error (file,
// line, column, dotted key) for every missing, mistyped or unknown entry instead of stopping at the
// first. Only the three loaders (metric_schema.cpp, gpu_specs.cpp, rules.cpp) include this header,
// so toml++ stays out of the rest of the library.

#include "diagnosis/data_error.hpp"
#include "expected/expected.hpp"

#include <toml++/toml.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::diagnosis::detail {

enum class presence : std::uint8_t { required, optional };

/// The parsed document, or its syntax error as a data_error.
expected<toml::table, data_error> parse_toml(std::string_view text, const std::string& file);

/// The whole file as text, or a data_error naming it (line 0) and why it could not be read.
expected<std::string, data_error> read_data_file(const std::filesystem::path& path);

/// "metric" + 3 -> "metric[3]"; "metric[3]" + "unit" -> "metric[3].unit".
std::string index_key(std::string_view path, std::size_t index);
std::string join_key(std::string_view path, std::string_view key);

class toml_fields {
public:
  toml_fields(std::string file, data_errors& errors) : file_(std::move(file)), errors_(errors) {}

  const std::string& file() const { return file_; }

  void error(const toml::source_region& at, std::string key, std::string message,
             std::string hint = {}, std::uint32_t column_offset = 0);

  /// Reports every key of `table` that is not in `known`, with a "did you mean" when one is close.
  void check_keys(const toml::table& table, std::string_view path,
                  std::span<const std::string_view> known);

  std::optional<std::string> string(const toml::table& table, std::string_view path,
                                    std::string_view key, presence need);
  /// A float; TOML integers are accepted.
  std::optional<double> number(const toml::table& table, std::string_view path,
                               std::string_view key, presence need);
  std::optional<std::int64_t> integer(const toml::table& table, std::string_view path,
                                      std::string_view key, presence need);
  /// An array of strings (each entry checked).
  std::optional<std::vector<std::string>> strings(const toml::table& table, std::string_view path,
                                                  std::string_view key, presence need);
  /// An array of tables ([[name]] blocks); nullptr when absent (reported if required).
  const toml::array* tables(const toml::table& table, std::string_view path, std::string_view key,
                            presence need);

  /// The node at `key`, or nullptr; a missing required key is reported at the table's place.
  const toml::node* find(const toml::table& table, std::string_view path, std::string_view key,
                         presence need, std::string_view expected_what);

private:
  std::string file_;
  data_errors& errors_;
};

/// The candidate closest to `word` if it is a likely typo (at most a third of the word's letters
/// differ, at least one); for "did you mean" hints.
std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string_view> candidates);

} // namespace warpforge::diagnosis::detail
