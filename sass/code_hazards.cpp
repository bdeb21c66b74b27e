#include "sass/code_hazards.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>

namespace warpforge::sass {
namespace {

using gpu::ptx_finding_kind;
using gpu::ptx_float_type;

constexpr std::array<std::string_view, 4> device_launch_names{"cudaLaunchDevice", "cudaGetParameterBuffer",
                                                              "__cudaCDP", "cudaGraphLaunch"};
constexpr std::array<std::string_view, 3> timer_registers{"SR_CLOCK", "SR_GLOBALTIMER", "SR_PM"};

bool has(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

bool is_zero_register(const std::string& operand) {
  return operand == "RZ" || operand == "-RZ" || operand == "|RZ|" || operand == "-|RZ|";
}

// The narrowest float type a modifier list names (F16, BF16, TF32, E4M3, E5M2), if any.
std::optional<ptx_float_type> narrow_modifier(const std::vector<std::string>& modifiers) {
  std::optional<ptx_float_type> narrowest;
  auto consider = [&](ptx_float_type t) { narrowest = narrowest ? std::min(*narrowest, t) : t; };
  for (const auto& m : modifiers) {
    if (m == "F16" || m == "F16_V2")
      consider(ptx_float_type::f16);
    else if (m == "BF16" || m == "BF16_V2")
      consider(ptx_float_type::bf16);
    else if (m == "TF32")
      consider(ptx_float_type::tf32);
    else if (m.starts_with("E4M3") || m.starts_with("E5M2") || m.starts_with("E2M1"))
      consider(ptx_float_type::fp8);
  }
  return narrowest;
}

// The type an instruction computes in when it is narrower than `problem`.
std::optional<ptx_float_type> narrowing_of(const sass_instruction& in, ptx_float_type problem) {
  if (problem == ptx_float_type::none)
    return std::nullopt;
  std::optional<ptx_float_type> type;
  const auto& op = in.opcode;
  if (op == "HMMA")
    type = narrow_modifier(in.modifiers).value_or(ptx_float_type::f16); // HMMA.16816.F32: f16 inputs
  else if (op == "QMMA")
    type = ptx_float_type::fp8;
  else if (op == "HFMA2" || op == "HADD2" || op == "HMUL2" || op == "HMNMX2") {
    const bool loads_a_constant = op == "HFMA2" && in.operands.size() >= 3 &&
                                  (is_zero_register(in.operands[1]) || is_zero_register(in.operands[2]));
    // HADD2.F32 Rd, -RZ, Rx.H0_H0: a half widened to f32 (how ptxas converts), not half math.
    const bool widens = op == "HADD2" && has(in.modifiers, "F32") && in.operands.size() >= 2 &&
                        is_zero_register(in.operands[1]);
    if (loads_a_constant || widens)
      return std::nullopt;
    type = has(in.modifiers, "BF16_V2") || has(in.modifiers, "BF16") ? ptx_float_type::bf16 : ptx_float_type::f16;
  } else if (op == "F2F" || op == "F2FP") {
    // F2F.<destination>.<source>; F2FP.<destination>.F32.PACK_AB
    if (!in.modifiers.empty())
      type = narrow_modifier({in.modifiers.front()});
    if (!type && problem == ptx_float_type::f64 && in.modifiers.size() >= 2 && in.modifiers[0] == "F32" &&
        in.modifiers[1] == "F64")
      type = ptx_float_type::f32;
  } else if (problem == ptx_float_type::f64 && (op == "FFMA" || op == "FADD" || op == "FMUL")) {
    type = ptx_float_type::f32;
  }
  if (type && *type < problem)
    return type;
  return std::nullopt;
}

} // namespace

code_hazard_scan scan_code_hazards(const disassembly& listing, ptx_float_type problem_type) {
  code_hazard_scan scan;
  for (const auto& kernel : listing.kernels)
    for (const auto& in : kernel.instructions) {
      if (in.never_executes())
        continue;
      for (const auto& operand : in.operands) {
        for (auto timer : timer_registers)
          if (operand.starts_with(timer)) {
            scan.refused.push_back({ptx_finding_kind::timer_read, kernel.name, in.address, in.text, operand});
            break;
          }
        for (auto name : device_launch_names)
          if (operand.find(name) != std::string::npos) {
            scan.refused.push_back({ptx_finding_kind::device_launch, kernel.name, in.address, in.text, std::string{name}});
            break;
          }
      }
      if (auto narrow = narrowing_of(in, problem_type)) {
        if (scan.narrowing.size() < gpu::ptx_findings_kept)
          scan.narrowing.push_back(
              {ptx_finding_kind::narrow_precision, kernel.name, in.address, in.text, std::string{gpu::to_string(*narrow)}});
        ++scan.narrowing_count;
      }
    }
  if (scan.refused.size() > gpu::ptx_findings_kept)
    scan.refused.resize(gpu::ptx_findings_kept);
  return scan;
}

std::string describe(const code_finding& finding) {
  char address[24];
  std::snprintf(address, sizeof address, " +0x%04llx: ", static_cast<unsigned long long>(finding.address));
  const std::string where = "SASS " + finding.kernel + address + finding.text + " ";
  switch (finding.kind) {
  case ptx_finding_kind::device_launch:
    return where + "launches a kernel from the device (dynamic parallelism, " + finding.what +
           "): work the race's timing cannot see; refused";
  case ptx_finding_kind::timer_read:
    return where + "reads a clock (" + finding.what +
           "): a kernel that reads time can tell a timed launch from a checked one; refused";
  case ptx_finding_kind::narrow_precision:
    return where + "computes in " + finding.what + ", narrower than the problem's type";
  }
  return where;
}

} // namespace warpforge::sass
