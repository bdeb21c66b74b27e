#pragma once
// A problem in a TOML file, with its place: what the user reads when a spec or a data table
// (sass/data/*.toml, diagnosis/data/*.toml, a user's copy) is rejected.
//
//   examples/bad.toml:12:9: args[2].count: must be positive, got -4 (hint: counts are elements)
//
// Loaders collect every error of a file (not only the first), sort them by place and return them
// all. Also here: the words hints are made of ("did you mean", "a, b or c").

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::toml_reader {

/// Where something was written in its file.
struct place {
  std::uint32_t line = 0;   // 1-based; 0 = not from a file, or the file as a whole
  std::uint32_t column = 0; // 1-based; 0 = the whole line

  bool operator==(const place&) const = default;
};

struct placed_error {
  std::string file;         // as named by the caller: a path, or "<builtin>/rules.toml"
  std::uint32_t line = 0;   // 1-based; 0 = the file as a whole (it could not be read)
  std::uint32_t column = 0; // 1-based; 0 = the whole line
  std::string key;          // dotted path, e.g. "args[2].count" (0-based indices); empty for syntax
  std::string message;      // what is wrong, and what was expected
  std::string hint;         // how to fix it; may be empty

  bool operator==(const placed_error&) const = default;
};

/// Every error found in one load.
using placed_errors = std::vector<placed_error>;

/// `file:line:col: key: message (hint: ...)`; parts that are unknown or empty are left out.
std::string to_string(const placed_error& error);

/// One error per line, each formatted as above.
std::string to_string(const placed_errors& errors);

/// Sorts by (line, column), keeping the order of errors at the same place: file order.
void sort_by_place(placed_errors& errors);

/// The candidate closest to `word` by edit distance, if it is close enough to be a likely typo
/// (case is ignored; at most 1 edit for words up to 4 letters, else at most a third of the word).
std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string_view> candidates);

/// "did you mean 'x'?" for the closest_match, or "" when none is close.
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);

/// "a, b or c": the candidates written out for a message.
std::string join_alternatives(std::span<const std::string_view> candidates);

} // namespace warpforge::toml_reader
