#include "llm/reply/reply_fault.hpp"

namespace warpforge::llm {

std::string_view to_string(reply_fault fault) {
  switch (fault) {
  case reply_fault::too_long: return "too_long";
  case reply_fault::no_json: return "no_json";
  case reply_fault::bad_json: return "bad_json";
  case reply_fault::schema: return "schema";
  case reply_fault::no_variants: return "no_variants";
  case reply_fault::too_many_variants: return "too_many_variants";
  case reply_fault::duplicate_name: return "duplicate_name";
  case reply_fault::no_code: return "no_code";
  case reply_fault::elided_code: return "elided_code";
  case reply_fault::non_ascii: return "non_ascii";
  case reply_fault::missing_entry: return "missing_entry";
  case reply_fault::changed_signature: return "changed_signature";
  case reply_fault::host_code: return "host_code";
  case reply_fault::unknown_method: return "unknown_method";
  case reply_fault::bad_define: return "bad_define";
  case reply_fault::bad_launch: return "bad_launch";
  }
  return "unknown";
}

std::optional<reply_fault> reply_fault_from_string(std::string_view text) {
  for (const auto fault : all_reply_faults)
    if (to_string(fault) == text)
      return fault;
  return std::nullopt;
}

} // namespace warpforge::llm
