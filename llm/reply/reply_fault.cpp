#include "llm/reply/reply_fault.hpp"

#include "foundation/vocabulary/enum_text.hpp"

namespace warpforge::llm {

constexpr vocabulary::enum_word<reply_fault> reply_fault_words[] = {
    {reply_fault::too_long, "too_long"},
    {reply_fault::no_json, "no_json"},
    {reply_fault::bad_json, "bad_json"},
    {reply_fault::schema, "schema"},
    {reply_fault::no_variants, "no_variants"},
    {reply_fault::too_many_variants, "too_many_variants"},
    {reply_fault::duplicate_name, "duplicate_name"},
    {reply_fault::no_code, "no_code"},
    {reply_fault::elided_code, "elided_code"},
    {reply_fault::non_ascii, "non_ascii"},
    {reply_fault::missing_entry, "missing_entry"},
    {reply_fault::changed_signature, "changed_signature"},
    {reply_fault::host_code, "host_code"},
    {reply_fault::unknown_method, "unknown_method"},
    {reply_fault::bad_define, "bad_define"},
    {reply_fault::bad_launch, "bad_launch"},
};
static_assert(vocabulary::covers(reply_fault_words, all_reply_faults));

std::string_view to_string(reply_fault fault) { return vocabulary::word_of(reply_fault_words, fault); }

std::optional<reply_fault> reply_fault_from_string(std::string_view text) {
  return vocabulary::value_of(reply_fault_words, text);
}

} // namespace warpforge::llm
