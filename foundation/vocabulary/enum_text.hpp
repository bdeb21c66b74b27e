#pragma once
// Every vocabulary enum has `to_string(value)` (its word), `from_string<Enum>(word)` (nullopt for
// a word it does not know) and `all_<enum>s` in declaration order. The words are the format of
// the store's columns, the events' fields and the runner protocol: renaming one needs a store
// migration and a protocol version; adding one needs neither.
//
// Any enum of the tree with a text form writes its words once, in one table of `enum_word`s in
// its .cpp, and makes both directions from it (never a switch for one and a loop for the other):
//
//   constexpr vocabulary::enum_word<stop_reason> stop_reason_words[] = {
//       {stop_reason::end, "end"}, {stop_reason::max_tokens, "max_tokens"}, ...};
//   static_assert(vocabulary::covers(stop_reason_words, all_stop_reasons)); // no value forgotten
//   std::string_view to_string(stop_reason r) { return vocabulary::word_of(stop_reason_words, r); }
//   std::optional<stop_reason> stop_reason_from_string(std::string_view text) {
//     return vocabulary::value_of(stop_reason_words, text);
//   }

#include <cstddef>
#include <optional>
#include <string_view>

namespace warpforge::vocabulary {

template <class Enum>
std::optional<Enum> from_string(std::string_view text);

/// One value of an enum and the word that stands for it in text.
template <class Enum>
struct enum_word {
  Enum value;
  std::string_view word;
};

/// The word of `value`; "unknown" only for a value outside the enum (a cast from a bad integer):
/// `covers` keeps every declared value in its table.
template <class Enum, std::size_t N>
constexpr std::string_view word_of(const enum_word<Enum> (&table)[N], Enum value) {
  for (const auto& entry : table)
    if (entry.value == value)
      return entry.word;
  return "unknown";
}

/// The value whose word is exactly `word` (case and spaces count); nullopt for any other text.
template <class Enum, std::size_t N>
constexpr std::optional<Enum> value_of(const enum_word<Enum> (&table)[N], std::string_view word) {
  for (const auto& entry : table)
    if (entry.word == word)
      return entry.value;
  return std::nullopt;
}

/// True when the table names each of `all` (the enum's values) exactly once, with no other entry
/// and no word twice: for a static_assert beside the table.
template <class Enum, std::size_t N, class All>
constexpr bool covers(const enum_word<Enum> (&table)[N], const All& all) {
  std::size_t values = 0;
  for (Enum value : all) {
    ++values;
    std::size_t found = 0;
    for (const auto& entry : table)
      found += entry.value == value ? 1 : 0;
    if (found != 1)
      return false;
  }
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = i + 1; j < N; ++j)
      if (table[i].word == table[j].word)
        return false;
  return values == N;
}

} // namespace warpforge::vocabulary
