#pragma once
// Internal to sass/: reads the library's TOML data files (signature table, method catalog) and
// records a placed config::spec_error — file:line:column, dotted key, message, hint — for every
// missing, mistyped or unknown entry instead of stopping at the first. Only sass/*.cpp include
// this header (it brings in toml++).

#include "config/spec_error.hpp"

#include <toml++/toml.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::sass::detail {

/// The whole file, or nullopt when it cannot be read.
std::optional<std::string> read_text_file(const std::filesystem::path& path);

/// "signature" + 3 -> "signature[3]"; "signature[3]" + "id" -> "signature[3].id".
std::string index_key(std::string_view path, std::size_t index);
std::string join_key(std::string_view path, std::string_view key);

/// A string value with the place it was written.
struct placed_string {
  std::string value;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

class data_reader {
public:
  explicit data_reader(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  config::spec_errors& errors() { return errors_; }
  bool ok() const { return errors_.empty(); }

  /// The document, or nullopt after recording its syntax error.
  std::optional<toml::table> parse(std::string_view text);

  void error(const toml::node& at, std::string key, std::string message, std::string hint = {});
  void error(std::uint32_t line, std::uint32_t column, std::string key, std::string message,
             std::string hint = {});

  /// Reports every key of `table` not in `known`, with a "did you mean" when one is close.
  void check_keys(const toml::table& table, std::string_view path,
                  std::span<const std::string_view> known);

  /// The node at `key`; nullptr (and an error when `required`) if absent.
  const toml::node* find(const toml::table& table, std::string_view path, std::string_view key,
                         bool required, std::string_view what);

  std::optional<placed_string> string(const toml::table& table, std::string_view path,
                                      std::string_view key, bool required);
  std::optional<std::int64_t> integer(const toml::table& table, std::string_view path,
                                      std::string_view key, bool required);
  /// A number; integers are accepted.
  std::optional<double> number(const toml::table& table, std::string_view path,
                               std::string_view key, bool required);
  /// An array of strings, each with its place; nullopt if absent or not an array of strings.
  std::optional<std::vector<placed_string>> strings(const toml::table& table,
                                                    std::string_view path, std::string_view key,
                                                    bool required);
  /// The array of tables at `key` ([[key]] entries); empty if absent (an error when required).
  std::vector<const toml::table*> tables(const toml::table& table, std::string_view key,
                                         bool required);

  /// "unknown value 'x' (expected a, b or c)" with a "did you mean" hint when close.
  void unknown_value(std::uint32_t line, std::uint32_t column, std::string key,
                     std::string_view value, std::span<const std::string_view> alternatives);

private:
  std::string file_;
  config::spec_errors errors_;
};

} // namespace warpforge::sass::detail
