#pragma once
// The SASS gate: before any timing, the compiled benchmark must contain the instructions it is
// meant to time (registry.hpp's required_sass), or its number would measure something else
// (a folded chain, a fallback path of a bare sm_90 build, a narrowed load).

#include "calibrate/bench/registry.hpp"

#include <string>

namespace warpforge::calibrate {

struct sass_gate_result {
  bool ok = false;     // every required opcode is there
  std::string reason;  // when not ok: the missing opcodes, or why nothing could be checked
  std::string listing; // the parsed instructions, one per line ("kernel: name" headers,
                       // "/*0660*/ HGMMA.64x256x16.F32 R24, gdesc[UR4], R24, gsb0"), for the archive
};

/// Checks the text `cuobjdump -sass` or `nvdisasm -c` printed for the benchmark's binary.
/// Not ok: an unreadable or empty disassembly, a benchmark with nothing to require, or a
/// required opcode that appears in no kernel (instructions that never execute do not count).
sass_gate_result check_sass(const std::string& disassembly, const benchmark& bench);

} // namespace warpforge::calibrate
