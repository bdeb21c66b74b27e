#pragma once
// The SASS half of the check gpu/compile/ptx_check.hpp does on PTX: in a disassembled CUBIN, the
// instructions that read a clock or launch a kernel from the device (refused), and arithmetic in a
// narrower float type than the problem's (reported; refused where the problem forbids it). It runs
// where a disassembler exists (nvdisasm or cuobjdump); the PTX check runs everywhere.
//
//   auto scan = scan_code_hazards(*listing, gpu::ptx_float_type::f32);
//   if (!scan.refused.empty()) reject(describe(scan.refused.front()));
//
// Timers: S2R / S2UR / CS2R of SR_CLOCKLO, SR_CLOCKHI, SR_GLOBALTIMERLO, SR_GLOBALTIMERHI (and the
// performance monitors SR_PM*). Device launches: an operand naming the CDP runtime
// (cudaLaunchDevice, cudaGetParameterBuffer, __cudaCDP*, cudaGraphLaunch), as nvdisasm prints it
// (`CALL.ABS.NOINC `(__cudaCDP2LaunchDeviceV2)`); cuobjdump prints such a call nameless
// (`CALL.ABS.NOINC 0x0`, as it does vprintf's), so there only the PTX check sees the launch.
// Narrowing on an f32 problem: HMMA (f16/bf16/tf32 tensor cores), QMMA / HMMA.*E4M3 / E5M2 (fp8),
// HFMA2 / HADD2 / HMUL2 / HMNMX2 (paired f16 arithmetic), F2F and F2FP with an F16 / BF16 / TF32
// destination; on an f64 problem also FFMA / FADD / FMUL and F2F.F32.F64. An HFMA2 whose
// multiplicands include RZ is ptxas loading a constant into a register (`HFMA2.MMA R6, -RZ, RZ,
// 0, 0`), and `HADD2.F32 Rd, -RZ, Rx.H0_H0` is a half widened to f32: neither counts. (Real half
// math is `HFMA2.MMA R0, R0, R0, R0` too: the .MMA says which pipe, not whether it is math.)

#include "gpu/compile/ptx_check.hpp"
#include "sass/disassembly.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace warpforge::sass {

/// One instruction of the listing the check found.
struct code_finding {
  gpu::ptx_finding_kind kind = gpu::ptx_finding_kind::timer_read;
  std::string kernel;        // the function it is in
  std::uint64_t address = 0; // its offset in the function's code
  std::string text;          // "CS2R R2, SR_CLOCKLO"
  std::string what;          // "SR_CLOCKLO", "f16", "cudaLaunchDevice"
  friend bool operator==(const code_finding&, const code_finding&) = default;
};

struct code_hazard_scan {
  std::vector<code_finding> refused;   // timer reads and device launches, in listing order
  std::vector<code_finding> narrowing; // the first few narrowing instructions
  std::uint64_t narrowing_count = 0;   // all of them
};

/// Scans every function of `listing` (instructions that never execute are skipped).
code_hazard_scan scan_code_hazards(const disassembly& listing, gpu::ptx_float_type problem_type);

/// "SASS kernel +0x0040: CS2R R2, SR_CLOCKLO reads a clock (SR_CLOCKLO): ...; refused".
std::string describe(const code_finding& finding);

} // namespace warpforge::sass
