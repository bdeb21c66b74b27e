#include "config/toml_reader/placed_error.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <numeric>
#include <utility>

namespace warpforge::toml_reader {

std::string to_string(const placed_error& error) {
  std::string out = error.file;
  if (error.line > 0) {
    out += ':' + std::to_string(error.line);
    if (error.column > 0)
      out += ':' + std::to_string(error.column);
  }
  out += ": ";
  if (!error.key.empty())
    out += error.key + ": ";
  out += error.message;
  if (!error.hint.empty())
    out += " (hint: " + error.hint + ")";
  return out;
}

std::string to_string(const placed_errors& errors) {
  std::string out;
  for (const auto& error : errors) {
    out += to_string(error);
    out += '\n';
  }
  return out;
}

void sort_by_place(placed_errors& errors) {
  std::stable_sort(errors.begin(), errors.end(), [](const placed_error& a, const placed_error& b) {
    return std::pair{a.line, a.column} < std::pair{b.line, b.column};
  });
}

namespace {

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Levenshtein distance, case-insensitive, two rows.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> previous(b.size() + 1);
  std::vector<std::size_t> current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution =
        previous[j - 1] + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

} // namespace

std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string_view> candidates) {
  // Short words tolerate one typo; longer ones about one per three letters.
  constexpr std::size_t short_word = 4;
  constexpr std::size_t letters_per_edit = 3;
  const std::size_t limit = word.size() <= short_word ? 1 : word.size() / letters_per_edit;
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const auto candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = std::string{candidate};
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
  if (auto match = closest_match(word, candidates))
    return "did you mean '" + *match + "'?";
  return {};
}

std::string join_alternatives(std::span<const std::string_view> candidates) {
  std::string out;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (i > 0)
      out += i + 1 == candidates.size() ? " or " : ", ";
    out += candidates[i];
  }
  return out;
}

} // namespace warpforge::toml_reader
