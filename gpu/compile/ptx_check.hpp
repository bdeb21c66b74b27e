#pragma once
// What a candidate's PTX shows before it is ever timed: instructions that let a kernel win a race
// without doing the work (refused), and arithmetic in a narrower float type than the problem's
// (reported, refused where the problem forbids it). NVRTC always gives the PTX, so this check
// runs on every host; the SASS check (sass/code_hazards.hpp) repeats it where a disassembler exists.
//
//   auto scan = scan_ptx(compiled.ptx, ptx_float_type::f32);
//   if (!scan.refused.empty()) return sass_rejected(describe(scan.refused.front()));
//   if (!scan.narrowing.empty()) note(describe(scan.narrowing.front()));
//
// Refused (docs/measurement.md, "Which tricks are refused where"):
//   device_launch  a kernel launched from the device (dynamic parallelism: the CDP runtime calls
//                  cudaLaunchDevice / cudaGetParameterBuffer / __cudaCDP2*, cudaGraphLaunch):
//                  work the race's events cannot see, on streams it does not own
//   timer_read     %globaltimer(_lo/_hi), %clock, %clock_hi, %clock64 and the performance
//                  monitors %pm0..%pm7(_64): a kernel that reads time can tell a timed launch
//                  from a checked one and do less work when it is being timed
// Not refused: nanosleep (CUB's decoupled look-back backs off with it; a sleep tells the kernel
// nothing about time by itself), %smid, %laneid, %warpid and the other ids.
//
// Narrowing: arithmetic (add, sub, mul, fma, mad, div, rcp, sqrt, min, max, ex2, lg2, tanh, mma,
// wmma, wgmma) on a float type narrower than the problem's, or a conversion (cvt) whose
// destination is narrower than its source and than the problem's type: cvt.rn.f16.f32,
// fma.rn.f16x2, mma...f16, cvt.rna.tf32.f32, and on an f64 problem cvt.rn.f32.f64.
// The problem's type of an integer problem is `none`: nothing is narrowing.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

/// Float types in PTX, narrowest first (the order is the comparison).
enum class ptx_float_type : std::uint8_t { fp8, f16, bf16, tf32, f32, f64, none };
std::string_view to_string(ptx_float_type type);

/// What an instruction of the PTX does that the check cares about.
enum class ptx_finding_kind : std::uint8_t {
  device_launch,    // refused: dynamic parallelism
  timer_read,       // refused: reads a clock or a performance monitor
  narrow_precision, // computes in a narrower type than the problem's
};
inline constexpr std::array all_ptx_finding_kinds{ptx_finding_kind::device_launch, ptx_finding_kind::timer_read,
                                                  ptx_finding_kind::narrow_precision};
std::string_view to_string(ptx_finding_kind kind);
std::optional<ptx_finding_kind> ptx_finding_kind_from_string(std::string_view text);

/// One instruction the check found.
struct ptx_finding {
  ptx_finding_kind kind = ptx_finding_kind::timer_read;
  std::uint32_t line = 0;  // 1-based line in the PTX
  std::string instruction; // the statement as written, trimmed ("mov.u64 %rd1, %globaltimer;")
  std::string what;        // the register, call or type that matched ("%globaltimer", "f16")
  friend bool operator==(const ptx_finding&, const ptx_finding&) = default;
};

struct ptx_scan {
  std::vector<ptx_finding> refused;   // device_launch and timer_read, in PTX order
  std::vector<ptx_finding> narrowing; // narrow_precision, in PTX order
  std::uint64_t narrowing_count = 0;  // all narrowing instructions (the list keeps the first few)
};

/// How many findings of each list a scan keeps (the count goes on).
inline constexpr std::size_t ptx_findings_kept = 8;

/// Scans `ptx` for refused instructions and, against `problem_type`, narrowing ones.
ptx_scan scan_ptx(std::string_view ptx, ptx_float_type problem_type);

/// "PTX line 42: mov.u64 %rd1, %globaltimer; reads the global timer (%globaltimer): ..." — the
/// finding and why it matters, for a branch's detail.
std::string describe(const ptx_finding& finding);

} // namespace warpforge::gpu
