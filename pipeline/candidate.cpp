#include "pipeline/candidate.hpp"

#include "foundation/vocabulary/enum_text.hpp"

namespace warpforge::pipeline {

constexpr vocabulary::enum_word<define_set> define_set_words[] = {
    {define_set::tunables_and_own, "tunables_and_own"},
    {define_set::own_only, "own_only"},
};
static_assert(vocabulary::covers(define_set_words, all_define_sets));

std::string_view to_string(define_set set) { return vocabulary::word_of(define_set_words, set); }

std::optional<define_set> define_set_from_string(std::string_view text) {
  return vocabulary::value_of(define_set_words, text);
}

} // namespace warpforge::pipeline
