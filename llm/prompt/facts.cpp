#include "llm/prompt/facts.hpp"

#include "foundation/vocabulary/enum_text.hpp"

namespace warpforge::llm {

constexpr vocabulary::enum_word<attempt_verdict> attempt_verdict_words[] = {
    {attempt_verdict::accepted, "ACCEPTED"},
    {attempt_verdict::rejected, "REJECTED"},
    {attempt_verdict::failed, "FAILED"},
};
static_assert(vocabulary::covers(attempt_verdict_words, all_attempt_verdicts));

std::string_view to_string(attempt_verdict verdict) { return vocabulary::word_of(attempt_verdict_words, verdict); }

std::optional<attempt_verdict> attempt_verdict_from_string(std::string_view text) {
  return vocabulary::value_of(attempt_verdict_words, text);
}

constexpr vocabulary::enum_word<fix_request::kind> fix_kind_words[] = {
    {fix_request::kind::compile, "compile"},
    {fix_request::kind::correctness, "correctness"},
};
static_assert(vocabulary::covers(fix_kind_words, all_fix_kinds));

std::string_view to_string(fix_request::kind what) { return vocabulary::word_of(fix_kind_words, what); }

std::optional<fix_request::kind> fix_kind_from_string(std::string_view text) {
  return vocabulary::value_of(fix_kind_words, text);
}

} // namespace warpforge::llm
