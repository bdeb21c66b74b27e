#pragma once
// Kernel mode: one candidate source → PTX + CUBIN through NVRTC, in process. The CUBIN must
// contain the requested entry (an extern "C" __global__ function), so a module that compiles but
// exports another name fails here, not later in the runner.

#include "foundation/expected/expected.hpp"
#include "gpu/compile/compile_options.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

/// Why a compile produced nothing. Consequence for the branch: compile_error and invalid_option
/// are deterministic (same inputs, same result: cached); internal may be transient (not cached).
enum class compile_failure_kind {
  compile_error,  // the compiler rejected the source; the log keeps its file(line) messages
  invalid_option, // an option (flag, arch, define) was not accepted
  internal,       // anything else: NVRTC/nvcc could not run, a timeout, an unreadable CUBIN
};

inline constexpr std::array all_compile_failure_kinds{compile_failure_kind::compile_error,
                                                      compile_failure_kind::invalid_option,
                                                      compile_failure_kind::internal};

std::string_view to_string(compile_failure_kind kind);
std::optional<compile_failure_kind> compile_failure_kind_from_string(std::string_view text);

struct compile_failure {
  compile_failure_kind kind = compile_failure_kind::internal;
  std::string log; // the compiler's log verbatim, plus warpforge's own explanation when it has one
};

/// A compiled kernel module, ready for the runner to load.
struct compiled_kernel {
  std::string entry;               // the kernel the request named; present in the CUBIN
  std::string arch;                // the target the request named ("sm_90a")
  std::string ptx;                 // PTX text, without NVRTC's trailing NUL
  std::vector<std::uint8_t> cubin; // the ELF module for `arch`
  std::string log;                 // NVRTC's log even on success (warnings); may be empty
  double compile_s = 0;            // wall time of the compile, seconds; 0 on a cache hit
  bool cache_hit = false;          // true when it came from compile_cache, without NVRTC
};

using compile_result = expected<compiled_kernel, compile_failure>;

/// Compiles `request` with NVRTC (thread-safe: one nvrtcProgram per call).
compile_result compile_kernel(const compile_request& request);

/// "13.0": the NVRTC library's version, part of every kernel cache key; "unknown" on failure.
std::string nvrtc_version_text();

} // namespace warpforge::gpu
