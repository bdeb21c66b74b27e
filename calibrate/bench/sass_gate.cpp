#include "calibrate/bench/sass_gate.hpp"

#include "sass/method_check.hpp"
#include "sass/parser.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace warpforge::calibrate {
namespace {

std::string joined(const std::vector<std::string>& items) {
  return fmt::format("{}", fmt::join(items, ", "));
}

// The parsed instructions, a kernel header before each kernel's code.
std::string render_listing(const sass::disassembly& listing) {
  std::string text;
  for (const auto& kernel : listing.kernels) {
    text += "kernel: " + kernel.name + (kernel.arch.empty() ? "" : " (" + kernel.arch + ")") + "\n";
    for (const auto& instruction : kernel.instructions) {
      char address[24];
      std::snprintf(address, sizeof address, "/*%04llx*/ ",
                    static_cast<unsigned long long>(instruction.address));
      text += address + instruction.text + "\n";
    }
  }
  return text;
}

std::string missing_reason(const std::vector<std::string>& missing, const benchmark& bench) {
  std::string reason = "the SASS of " + bench.parameter + " lacks " + joined(missing);
  if (!bench.arch.empty() && bench.arch.back() == 'a')
    reason += " (it needs -arch=" + bench.arch +
              "; a build for the bare architecture compiles none of it)";
  return reason;
}

} // namespace

sass_gate_result check_sass(const std::string& disassembly, const benchmark& bench) {
  sass_gate_result result;
  auto listing = sass::parse_sass(disassembly);
  if (!listing) {
    result.reason = "the disassembly of " + bench.parameter +
                    " cannot be read: " + listing.error().to_string();
    return result;
  }
  result.listing = render_listing(*listing);
  if (listing->instruction_count() == 0) {
    result.reason = "the disassembly of " + bench.parameter + " holds no instruction";
    return result;
  }
  if (bench.required_sass.empty()) {
    result.reason = bench.parameter + " names no required SASS: there is nothing to verify";
    return result;
  }
  const auto check = sass::check_opcodes(*listing, bench.required_sass);
  switch (check.outcome) {
  case sass::opcode_outcome::all_present:
    result.ok = true;
    break;
  case sass::opcode_outcome::missing:
    result.reason = missing_reason(check.missing, bench);
    break;
  case sass::opcode_outcome::unavailable:
    result.reason = "the SASS of " + bench.parameter + " could not be checked: " + check.reason;
    break;
  }
  return result;
}

} // namespace warpforge::calibrate
