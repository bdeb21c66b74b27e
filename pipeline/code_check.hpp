#pragma once
// The code check of a built candidate, before any GPU sees it: its PTX (always: NVRTC gives it)
// and, where a disassembler exists, its SASS are scanned for the tricks refused up front (a
// device-side launch, a clock read: gpu/compile/ptx_check.hpp, sass/code_hazards.hpp) and for
// arithmetic narrower than the problem's outputs. Run by pipeline::compile() on every branch,
// never on the job's reference kernel (the problem's own).
//
//   auto verdict = check_code(kernel.ptx, cubin_path, policy_for(problem));
//   // sass_rejected: a refused instruction; incorrect: narrower math the problem forbids;
//   // passed: verdict.note says what narrower math it does where that is allowed
//
// The problem's type is its outputs' widest float type (an integer problem has none). Lower
// precision is allowed when [reference] allow_lower_precision says so, else unless every float
// buffer is f32/f64 (f16/bf16 outputs, or mixed precision: half inputs; docs/specs.md).

#include "config/problem_spec.hpp"
#include "gpu/compile/ptx_check.hpp"
#include "foundation/vocabulary/branch.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace warpforge::pipeline {

/// What a candidate's code is checked against.
struct code_policy {
  gpu::ptx_float_type problem_type = gpu::ptx_float_type::none; // the outputs' widest float type
  bool lower_precision_allowed = true;                          // may it compute narrower?
  friend bool operator==(const code_policy&, const code_policy&) = default;
};

/// The outputs' (output and inout buffers') widest float dtype; none for an integer problem.
std::optional<config::dtype> problem_float_type(const config::problem_spec& problem);

/// [reference] allow_lower_precision, else false when the outputs are f32/f64 and no buffer is
/// f16/bf16, true otherwise (narrow outputs, mixed precision, integer problems).
bool lower_precision_allowed(const config::problem_spec& problem);

code_policy policy_for(const config::problem_spec& problem);

struct code_verdict {
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::passed; // passed, sass_rejected,
                                                                           // incorrect
  std::string detail; // not passed: the instruction and why
  std::string note;   // passed: narrower arithmetic where the problem allows it; else empty
  std::string checked; // "PTX" or "PTX and SASS": what was read
};

/// What this host's code check reads, for the branch detail, the events and the summary:
/// "PTX and SASS checked", or "PTX checked, SASS not checked: no disassembler (nvdisasm/cuobjdump
/// not found)" (sass::not_checked_no_disassembler). Never says "checked" of a SASS it cannot read.
std::string code_check_scope();

/// The SASS half alone: "checked", or sass::not_checked_no_disassembler.
std::string sass_check_state();

/// Checks `ptx` and, when a disassembler is found, the CUBIN at `cubin`.
code_verdict check_code(std::string_view ptx, const std::filesystem::path& cubin, const code_policy& policy);

} // namespace warpforge::pipeline
