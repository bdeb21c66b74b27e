#pragma once
// The SASS check: does a compiled kernel contain what a claimed method leaves behind? Answers per
// method, from the signature table (sass/signature_table.hpp), over one kernel or every kernel of
// the CUBIN, quoting the first matching instructions as evidence. Also the plainer question a
// microbenchmark asks: are these opcodes there?
//
//   auto listing = disassemble(cubin);
//   const std::vector<std::string> ids{"memory.async_copy", "compute.launch_config"};
//   auto checks = check_methods(listing, signature_table::builtin(), ids, {.kernel = "gemm"});
//   checks[0].presence == method_presence::present   // checks[0].matches: LDGSTS at 0x0130 ...

#include "sass/disassembler.hpp"
#include "sass/disassembly.hpp"
#include "sass/signature_table.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::sass {

/// The answer for one method.
enum class method_presence {
  present,        // the signature matched (every pattern, for match = all) and nothing forbidden
  absent,         // it did not: a method claimed but not in the code
  unavailable,    // no disassembly to look at (no tool, tool failed, kernel not in the CUBIN)
  not_checkable,  // SASS cannot show this method (verify = "runtime"): unverifiable by SASS
  unknown_method, // the id is not in the signature table
};

inline constexpr method_presence all_method_presences[] = {
    method_presence::present, method_presence::absent, method_presence::unavailable,
    method_presence::not_checkable, method_presence::unknown_method};

std::string_view to_string(method_presence presence);
std::optional<method_presence> method_presence_from_string(std::string_view text);

/// One instruction quoted as evidence.
struct sass_match {
  std::string kernel;    // the kernel it is in
  std::uint64_t address = 0; // its offset in that kernel, bytes
  std::string text;      // "LDGSTS.E.BYPASS.128 [R7], desc[UR6][R2.64]"
  std::string pattern;   // the pattern that matched it
  std::uint32_t line = 0; // its line in the disassembly text (1-based)
};

/// How many matching instructions a result quotes, per method.
inline constexpr std::size_t default_quoted_matches = 5;

struct method_check {
  std::string id;
  method_presence presence = method_presence::unavailable;
  std::string reason;                        // absent / unavailable / not_checkable: why
  std::vector<std::string> patterns_found;   // patterns that matched some instruction
  std::vector<std::string> patterns_missing; // patterns that matched none
  std::vector<std::string> forbidden_found;  // forbid patterns that matched (make it absent)
  std::vector<sass_match> matches;           // the first few matching instructions
  std::size_t match_count = 0;               // every matching instruction in scope
};

struct check_options {
  std::optional<std::string> kernel; // only kernels of this name (one per architecture in a fat
                                     // binary); nullopt: every kernel of the CUBIN
  std::size_t quoted_matches = default_quoted_matches;
  bool count_never_executed = false; // count @!PT instructions (ptxas padding) as evidence
};

/// One result per id, in the order given.
std::vector<method_check> check_methods(const disassembly& listing, const signature_table& table,
                                        std::span<const std::string> ids,
                                        const check_options& options = {});

/// The same when disassembling failed: every checkable method is `unavailable` with the failure
/// as its reason (runtime methods stay not_checkable, unknown ids unknown_method).
std::vector<method_check> check_methods(const expected<disassembly, disassemble_failure>& listing,
                                        const signature_table& table,
                                        std::span<const std::string> ids,
                                        const check_options& options = {});

/// The answer to "are these opcodes there?".
enum class opcode_outcome {
  all_present, // every expected opcode appears
  missing,     // at least one does not (see `missing`)
  unavailable, // no disassembly to look at, or the kernel is not in it
};

inline constexpr opcode_outcome all_opcode_outcomes[] = {
    opcode_outcome::all_present, opcode_outcome::missing, opcode_outcome::unavailable};

std::string_view to_string(opcode_outcome outcome);
std::optional<opcode_outcome> opcode_outcome_from_string(std::string_view text);

struct opcode_check {
  opcode_outcome outcome = opcode_outcome::unavailable;
  std::string reason;               // unavailable: why
  std::vector<std::string> found;   // expected opcodes that appear, in the order given
  std::vector<std::string> missing; // expected opcodes that do not
};

/// Whether each expected opcode appears. "LDG.E.128" appears when an instruction's opcode is LDG
/// and its modifiers include E and 128, in any order and among others (LDG.E.128.CONSTANT counts;
/// case is ignored). @!PT instructions never count unless options say so.
opcode_check check_opcodes(const disassembly& listing, std::span<const std::string> opcodes,
                           const check_options& options = {});
opcode_check check_opcodes(const expected<disassembly, disassemble_failure>& listing,
                           std::span<const std::string> opcodes,
                           const check_options& options = {});

} // namespace warpforge::sass
