#include "pipeline/code_check.hpp"

#include "sass/code_hazards.hpp"
#include "sass/disassembler.hpp"

#include <algorithm>

namespace warpforge::pipeline {
namespace {

using vocabulary::branch_outcome;

gpu::ptx_float_type ptx_type_of(config::dtype type) {
  switch (type) {
  case config::dtype::f16: return gpu::ptx_float_type::f16;
  case config::dtype::bf16: return gpu::ptx_float_type::bf16;
  case config::dtype::f32: return gpu::ptx_float_type::f32;
  case config::dtype::f64: return gpu::ptx_float_type::f64;
  default: return gpu::ptx_float_type::none;
  }
}

std::string narrowing_text(const std::string& first, std::uint64_t count, const code_policy& policy) {
  return first + " (" + std::to_string(count) + " narrowing instruction" + (count == 1 ? "" : "s") +
         " in all; the problem's outputs are " + std::string{gpu::to_string(policy.problem_type)} + ")";
}

} // namespace

std::optional<config::dtype> problem_float_type(const config::problem_spec& problem) {
  std::optional<config::dtype> widest;
  for (const auto& arg : problem.args)
    if (const auto* b = std::get_if<config::buffer_spec>(&arg);
        b != nullptr && b->role != config::arg_role::input && config::is_floating_point(b->type) &&
        (!widest || ptx_type_of(b->type) > ptx_type_of(*widest)))
      widest = b->type;
  return widest;
}

bool lower_precision_allowed(const config::problem_spec& problem) {
  if (problem.reference.allow_lower_precision)
    return *problem.reference.allow_lower_precision;
  const auto type = problem_float_type(problem);
  if (!type || (*type != config::dtype::f32 && *type != config::dtype::f64))
    return true;
  // A problem that brings f16/bf16 data (mixed precision: half inputs, float outputs) is computed
  // on tensor cores from those halves by any honest kernel: narrower math is its nature.
  return std::any_of(problem.args.begin(), problem.args.end(), [](const config::arg_spec& arg) {
    const auto* b = std::get_if<config::buffer_spec>(&arg);
    return b != nullptr && (b->type == config::dtype::f16 || b->type == config::dtype::bf16);
  });
}

code_policy policy_for(const config::problem_spec& problem) {
  const auto type = problem_float_type(problem);
  return {type ? ptx_type_of(*type) : gpu::ptx_float_type::none, lower_precision_allowed(problem)};
}

code_verdict check_code(std::string_view ptx, const std::filesystem::path& cubin, const code_policy& policy) {
  code_verdict verdict;
  verdict.checked = "PTX";
  const auto scan = gpu::scan_ptx(ptx, policy.problem_type);
  if (!scan.refused.empty()) {
    verdict.outcome = branch_outcome::sass_rejected;
    verdict.detail = gpu::describe(scan.refused.front());
    return verdict;
  }
  std::string narrowing;
  std::uint64_t count = scan.narrowing_count;
  if (!scan.narrowing.empty())
    narrowing = gpu::describe(scan.narrowing.front());
  // The SASS is what runs: a second opinion where a disassembler exists (none: the PTX stands).
  if (auto listing = sass::disassemble(cubin)) {
    verdict.checked = "PTX and SASS";
    const auto code = sass::scan_code_hazards(*listing, policy.problem_type);
    if (!code.refused.empty()) {
      verdict.outcome = branch_outcome::sass_rejected;
      verdict.detail = sass::describe(code.refused.front());
      return verdict;
    }
    if (narrowing.empty() && !code.narrowing.empty()) {
      narrowing = sass::describe(code.narrowing.front());
      count = code.narrowing_count;
    }
  }
  if (narrowing.empty())
    return verdict;
  if (!policy.lower_precision_allowed) {
    verdict.outcome = branch_outcome::incorrect;
    verdict.detail = narrowing_text(narrowing, count, policy) +
                     ": the problem forbids lower precision ([reference] allow_lower_precision = false, the "
                     "default for f32/f64 problems with no f16/bf16 buffer); results that pass the tolerance on these inputs may not on others";
    return verdict;
  }
  verdict.note = "lower precision: " + narrowing_text(narrowing, count, policy) + ", allowed by the problem";
  return verdict;
}

std::string sass_check_state() {
  return sass::find_disassembler() ? std::string{"checked"} : std::string{sass::not_checked_no_disassembler};
}

std::string code_check_scope() {
  const auto sass = sass_check_state();
  return sass == "checked" ? "PTX and SASS checked" : "PTX checked, SASS " + sass;
}

} // namespace warpforge::pipeline
