#pragma once
// A problem in a spec file, with its place: what the user reads when a spec is rejected.
//
//   examples/bad.toml:12:9: args[2].count: must be positive, got -4 (hint: counts are elements)
//
// Loaders collect every error of a file (not only the first) and return them all.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::config {

struct spec_error {
  std::string file;         // the spec file as given (campaign jobs: resolved from the campaign)
  std::uint32_t line = 0;   // 1-based; 0 = the file as a whole (it could not be read)
  std::uint32_t column = 0; // 1-based; 0 = the whole line
  std::string key;          // dotted path, e.g. "args[2].count" (0-based indices); empty for syntax
  std::string message;      // what is wrong, and what was expected
  std::string hint;         // how to fix it; may be empty

  bool operator==(const spec_error&) const = default;
};

/// Every error found in one load, in file order.
using spec_errors = std::vector<spec_error>;

/// `file:line:col: key: message (hint: ...)`; parts that are unknown or empty are left out.
std::string to_string(const spec_error& error);

/// One error per line, each formatted as above.
std::string to_string(const spec_errors& errors);

/// The candidate closest to `word` by edit distance, if it is close enough to be a likely typo
/// (case is ignored; at most 1 edit for words up to 4 letters, else at most a third of the word).
std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string_view> candidates);

/// "a, b or c": the candidates written out for a message.
std::string join_alternatives(std::span<const std::string_view> candidates);

} // namespace warpforge::config
