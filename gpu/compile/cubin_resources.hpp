#pragma once
// Per-kernel resource usage read from a CUBIN (an ELF64 file) on the host, without a GPU or the
// CUDA driver: registers, local memory, static shared memory, launch bounds, parameter bytes.
// The parser is small and bounds-checked: truncated or garbage input is an error, never a crash.
//
// Where each field comes from (docs/compiler.md has the table):
//   .nv.info               EIATTR_REGCOUNT, EIATTR_FRAME_SIZE, keyed by the kernel's symbol index
//   .nv.info.<kernel>      EIATTR_MAX_THREADS / EIATTR_REQNTID, EIATTR_CBANK_PARAM_SIZE,
//                          EIATTR_NUM_BARRIERS
//   .nv.shared.<kernel>    size = static shared memory (+ the reserved block, see below)
// A kernel is a FUNC symbol flagged as a CUDA entry (st_other & STO_CUDA_ENTRY).

#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

/// What ptxas decided for one kernel.
struct kernel_resources {
  std::string name;                        // the symbol (extern "C" name, or mangled)
  std::uint32_t registers = 0;             // registers per thread
  std::uint64_t local_bytes = 0;           // per-thread stack frame: local arrays + spills, bytes
  std::uint64_t static_shared_bytes = 0;   // static __shared__ per block, bytes
  std::uint32_t max_threads_per_block = 0; // __launch_bounds__/maxntid (x*y*z); 0: none declared
  std::uint32_t param_bytes = 0;           // kernel parameters in constant bank 0, bytes
  std::uint32_t barriers = 0;              // named barriers used (0 when not recorded)
  friend bool operator==(const kernel_resources&, const kernel_resources&) = default;
};

/// Why a CUBIN could not be read: "section 7 extends past the end of the file (…)".
struct cubin_error {
  std::string detail;
};

/// The shared memory the toolchain places at the start of every kernel's .nv.shared.<kernel>
/// section when the module has a `.nv.shared.reserved.0` section (sm_90 and later): the
/// driver's reserved shared memory per block, not the kernel's own. Checked against ptxas -v.
inline constexpr std::uint64_t reserved_shared_bytes = 1024;

/// Names of the kernels (entry functions) in the module, in symbol-table order.
expected<std::vector<std::string>, cubin_error> kernel_entries(std::span<const std::uint8_t> cubin);

/// Resources of every kernel in the module, in symbol-table order.
expected<std::vector<kernel_resources>, cubin_error>
read_kernel_resources(std::span<const std::uint8_t> cubin);

/// Resources of one kernel; an error names the kernels present when `kernel` is not one.
expected<kernel_resources, cubin_error> read_kernel_resources(std::span<const std::uint8_t> cubin,
                                                              std::string_view kernel);

} // namespace warpforge::gpu
