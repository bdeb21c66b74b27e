#pragma once
// Every vocabulary enum has `to_string(value)` (its word), `from_string<Enum>(word)` (nullopt for
// a word it does not know) and `all_<enum>s` in declaration order. The words are the format of
// the store's columns, the events' fields and the runner protocol: renaming one needs a store
// migration and a protocol version; adding one needs neither.

#include <optional>
#include <string_view>

namespace warpforge::vocabulary {

template <class Enum>
std::optional<Enum> from_string(std::string_view text);

} // namespace warpforge::vocabulary
