#pragma once
// Why a model's reply was refused: one enum value per kind of fault, and the problem record that
// names its place and says what is wrong. The re-ask (reask_text, parse.hpp) is built from these.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::llm {

enum class reply_fault : std::uint8_t {
  no_json,           // the reply holds no JSON object at all
  bad_json,          // the JSON object does not parse
  schema,            // a key is missing, unknown, repeated or of the wrong type
  no_variants,       // `variants` is empty
  too_many_variants, // more variants than the contract allows
  duplicate_name,    // two variants share a name
  no_code,           // a `code` is missing or blank
  elided_code,       // a `code` leaves something out ("// ... rest unchanged", an empty body)
  non_ascii,         // a `code` holds a byte outside ASCII
  missing_entry,     // no __global__ function with the contract's entry name, linkage and template form
  changed_signature, // the entry's parameter list differs from the problem's kernel
  host_code,         // host-side code in kernel mode (main, streams, events, <<<, host headers)
  unknown_method,    // a method id that is not in the method catalog
  bad_define,        // a define that is not NAME: integer
  bad_launch,        // a launch that is malformed, does not evaluate or exceeds the device
  too_long,          // the reply is longer than max_reply_bytes (parse.hpp); nothing of it is read
};

inline constexpr std::array all_reply_faults{
  reply_fault::no_json,        reply_fault::bad_json,          reply_fault::schema,
  reply_fault::no_variants,    reply_fault::too_many_variants, reply_fault::duplicate_name,
  reply_fault::no_code,        reply_fault::elided_code,       reply_fault::non_ascii,
  reply_fault::missing_entry,  reply_fault::changed_signature, reply_fault::host_code,
  reply_fault::unknown_method, reply_fault::bad_define,        reply_fault::bad_launch,
  reply_fault::too_long};

std::string_view to_string(reply_fault fault);
std::optional<reply_fault> reply_fault_from_string(std::string_view text);

/// One thing wrong with a reply.
struct reply_problem {
  reply_fault fault = reply_fault::schema;
  std::string where;  // the place: "reply", "variants[1].name", "variants[1].code line 12 column 5"
  std::string reason; // what is wrong, quoting the offending text where it helps

  bool operator==(const reply_problem&) const = default;
};

} // namespace warpforge::llm
