#include "gpu/compile/ptx_check.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <cctype>

namespace warpforge::gpu {
namespace {

// The CDP runtime's entry points as NVRTC (-rdc=true) and nvcc name them in PTX, old and new.
constexpr std::array<std::string_view, 4> device_launch_names{"cudaLaunchDevice", "cudaGetParameterBuffer",
                                                              "__cudaCDP", "cudaGraphLaunch"};

// Special registers that read time: the global nanosecond timer, the SM cycle counters and the
// performance monitor counters (which can count cycles too).
constexpr std::array<std::string_view, 14> timer_registers{
    "globaltimer", "globaltimer_lo", "globaltimer_hi", "clock", "clock_hi", "clock64", "pm0", "pm1",
    "pm2",         "pm3",            "pm4",            "pm5",   "pm6",      "pm7"};

// Opcodes that compute: their narrowest float type is the type they compute in.
constexpr std::array<std::string_view, 17> arithmetic_opcodes{"add", "sub",  "mul", "fma",  "mad", "div",
                                                              "rcp", "sqrt", "rsqrt", "min", "max", "ex2",
                                                              "lg2", "tanh", "mma", "wmma", "wgmma"};

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (std::isspace(static_cast<unsigned char>(text.front())) != 0 || text.front() == '{' ||
                           text.front() == '}'))
    text.remove_prefix(1);
  while (!text.empty() && (std::isspace(static_cast<unsigned char>(text.back())) != 0 || text.back() == '{' ||
                           text.back() == '}'))
    text.remove_suffix(1);
  return text;
}

// A PTX type modifier as a float type: f16x2 is f16, the fp8/fp6/fp4 formats are fp8.
std::optional<ptx_float_type> float_type_of(std::string_view modifier) {
  if (modifier == "f16" || modifier == "f16x2")
    return ptx_float_type::f16;
  if (modifier == "bf16" || modifier == "bf16x2")
    return ptx_float_type::bf16;
  if (modifier == "tf32")
    return ptx_float_type::tf32;
  if (modifier == "f32")
    return ptx_float_type::f32;
  if (modifier == "f64")
    return ptx_float_type::f64;
  for (std::string_view small : {"e4m3", "e5m2", "e2m1", "e2m3", "e3m2"})
    if (modifier.starts_with(small))
      return ptx_float_type::fp8;
  return std::nullopt;
}

std::vector<std::string_view> split(std::string_view text, char at) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const auto end = text.find(at, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos)
      return parts;
    start = end + 1;
  }
}

// The narrowing type of one instruction ("fma.rn.f16x2 ..." -> f16), if it narrows below `problem`.
std::optional<ptx_float_type> narrowing_of(std::string_view opcode, ptx_float_type problem) {
  if (problem == ptx_float_type::none)
    return std::nullopt;
  const auto parts = split(opcode, '.');
  const auto base = parts.front();
  std::vector<ptx_float_type> types;
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (auto t = float_type_of(parts[i]))
      types.push_back(*t);
  if (types.empty())
    return std::nullopt;
  if (base == "cvt") {
    // cvt.<rounding>.<destination>.<source>: narrowing when the destination is the narrower.
    if (types.size() < 2 || types[0] >= types[1] || types[0] >= problem)
      return std::nullopt;
    return types[0];
  }
  if (std::find(arithmetic_opcodes.begin(), arithmetic_opcodes.end(), base) == arithmetic_opcodes.end())
    return std::nullopt;
  const auto narrowest = *std::min_element(types.begin(), types.end());
  return narrowest < problem ? std::optional{narrowest} : std::nullopt;
}

// The first special register of `statement` that reads time ("%globaltimer"), if any.
std::optional<std::string> timer_in(std::string_view statement) {
  for (auto at = statement.find('%'); at != std::string_view::npos; at = statement.find('%', at + 1)) {
    auto end = at + 1;
    while (end < statement.size() && is_identifier_char(statement[end]))
      ++end;
    const auto name = statement.substr(at + 1, end - at - 1);
    if (std::find(timer_registers.begin(), timer_registers.end(), name) != timer_registers.end())
      return "%" + std::string{name};
  }
  return std::nullopt;
}

void keep(std::vector<ptx_finding>& list, ptx_finding finding) {
  if (list.size() < ptx_findings_kept)
    list.push_back(std::move(finding));
}

} // namespace

std::string_view to_string(ptx_float_type type) {
  switch (type) {
  case ptx_float_type::fp8: return "fp8";
  case ptx_float_type::f16: return "f16";
  case ptx_float_type::bf16: return "bf16";
  case ptx_float_type::tf32: return "tf32";
  case ptx_float_type::f32: return "f32";
  case ptx_float_type::f64: return "f64";
  case ptx_float_type::none: return "none";
  }
  return "none";
}

constexpr vocabulary::enum_word<ptx_finding_kind> ptx_finding_kind_words[] = {
    {ptx_finding_kind::device_launch, "device_launch"},
    {ptx_finding_kind::timer_read, "timer_read"},
    {ptx_finding_kind::narrow_precision, "narrow_precision"},
};
static_assert(vocabulary::covers(ptx_finding_kind_words, all_ptx_finding_kinds));

std::string_view to_string(ptx_finding_kind kind) { return vocabulary::word_of(ptx_finding_kind_words, kind); }

std::optional<ptx_finding_kind> ptx_finding_kind_from_string(std::string_view text) {
  return vocabulary::value_of(ptx_finding_kind_words, text);
}

ptx_scan scan_ptx(std::string_view ptx, ptx_float_type problem_type) {
  ptx_scan scan;
  bool launch_seen = false; // one device_launch finding is enough (declaration and call name it)
  std::uint32_t line_number = 0;
  for (auto line : split(ptx, '\n')) {
    ++line_number;
    if (auto comment = line.find("//"); comment != std::string_view::npos)
      line = line.substr(0, comment);
    if (!launch_seen)
      for (auto name : device_launch_names)
        if (line.find(name) != std::string_view::npos) {
          scan.refused.push_back({ptx_finding_kind::device_launch, line_number, std::string{trim(line)}, std::string{name}});
          launch_seen = true;
          break;
        }
    for (auto statement : split(line, ';')) {
      statement = trim(statement);
      if (statement.empty() || statement.front() == '.' || statement.back() == ':')
        continue; // directives, declarations, labels
      if (statement.front() == '@') { // a predicate guard: "@%p1 bra ..." / "@!%p1 ..."
        const auto space = statement.find_first_of(" \t");
        statement = space == std::string_view::npos ? std::string_view{} : trim(statement.substr(space));
      }
      if (statement.empty())
        continue;
      const std::string text = std::string{statement} + ";";
      if (auto timer = timer_in(statement))
        keep(scan.refused, {ptx_finding_kind::timer_read, line_number, text, *timer});
      const auto opcode = statement.substr(0, statement.find_first_of(" \t"));
      if (auto narrow = narrowing_of(opcode, problem_type)) {
        ++scan.narrowing_count;
        keep(scan.narrowing, {ptx_finding_kind::narrow_precision, line_number, text, std::string{to_string(*narrow)}});
      }
    }
  }
  return scan;
}

std::string describe(const ptx_finding& finding) {
  const std::string where = "PTX line " + std::to_string(finding.line) + ": " + finding.instruction + " ";
  switch (finding.kind) {
  case ptx_finding_kind::device_launch:
    return where + "launches a kernel from the device (dynamic parallelism, " + finding.what +
           "): work the race's timing cannot see, on streams it does not own; refused";
  case ptx_finding_kind::timer_read:
    return where + "reads a clock (" + finding.what +
           "): a kernel that reads time can tell a timed launch from a checked one and do less work when "
           "timed; refused";
  case ptx_finding_kind::narrow_precision:
    return where + "computes in " + finding.what + ", narrower than the problem's type";
  }
  return where;
}

} // namespace warpforge::gpu
