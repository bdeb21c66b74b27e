#pragma once
// The reply envelope: what a model's answer becomes once parse_reply (parse.hpp) has accepted it.
// The wire format (JSON) is documented in envelope.md; the text the model is given is
// envelope_instructions.md. Plain values, no JSON inside: the proposer turns each variant (and
// each of its ablations) into a branch candidate.

#include "config/expression/expression.hpp"

#include <optional>
#include <string>
#include <vector>

namespace warpforge::llm {

/// A variant's own launch geometry, as integer expressions (config/expression/'s integer language) over
/// the problem's dims and the variant's defines. Checked for syntax by parse_reply; evaluated and
/// checked against the device's limits by evaluate_launch (launch.hpp).
struct variant_launch {
  std::vector<std::string> grid;      // 1 to 3 expressions, x first: blocks per grid axis
  std::vector<std::string> block;     // 1 to 3 expressions, x first: threads per block axis
  std::string shared_bytes = "0";     // expression: bytes of dynamic shared memory per block

  bool operator==(const variant_launch&) const = default;
};

/// A variant's leave-one-out version: the same kernel with exactly one claimed method undone.
/// Self-contained: where the reply gave no `defines` or `launch` for it, parse_reply copied the
/// variant's, so a consumer never merges.
struct leave_one_out {
  std::string without;                 // the method id undone (one of the variant's methods)
  std::string code;                    // the complete kernel source
  expression::integer_values defines;  // compiled as -DNAME=value; usable in `launch`
  std::optional<variant_launch> launch; // nullopt: the problem's launch

  bool operator==(const leave_one_out&) const = default;
};

struct proposed_variant {
  std::string name;                    // [a-z0-9_]{1,64}, unique within the reply
  std::string memo;                    // one line: what this variant changes
  std::vector<std::string> methods;    // method-catalog ids this variant claims, no repeats
  std::string code;                    // the complete kernel source
  expression::integer_values defines;  // compiled as -DNAME=value; usable in `launch`
  std::optional<variant_launch> launch; // nullopt: the problem's launch
  std::vector<leave_one_out> ablations; // at most one per claimed method

  bool operator==(const proposed_variant&) const = default;
};

struct envelope {
  std::string analysis;                 // the model's short reading of the diagnosis ("" if none)
  std::vector<proposed_variant> variants; // 1 to kernel_contract::max_variants

  bool operator==(const envelope&) const = default;
};

} // namespace warpforge::llm
