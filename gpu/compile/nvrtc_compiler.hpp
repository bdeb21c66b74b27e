#pragma once
// Kernel mode: one candidate source → PTX + CUBIN through NVRTC, in process. The entry (an
// extern "C" name, a C++ function or a template instantiation: config/kernel_entry.hpp) is given
// to NVRTC as a name expression, which instantiates a template and yields the lowered (mangled)
// symbol; the CUBIN must hold that kernel, and entry_symbol (entry_name.hpp) must find the same
// symbol from the entry alone, so a module that compiles but exports another kernel fails here,
// not later in the runner. Headers come only from the request's include folders
// (include_check.hpp's walk_included_headers).

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
  std::string entry;               // the kernel as the request named it ("MatrixMulCUDA<32>")
  std::string symbol;              // its lowered name in the CUBIN, NVRTC's: what the runner
                                   // loads, the SASS check and ncu look for ("_Z13Matrix...";
                                   // an extern "C" entry's own name)
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

/// The options compile_kernel gives NVRTC: canonical_options(request), then the CUDA toolkit's
/// include folders, <CUDA home>/include and its cccl/ where they exist ($CUDA_HOME, else
/// /usr/local/cuda): NVRTC 13 carries none of CUDA's headers (cuda_fp16.h, cooperative_groups.h
/// and the cuda/std headers they include), so they are searched last, after the problem's.
std::vector<std::string> nvrtc_options(const compile_request& request);

/// "13.0": the NVRTC library's version, part of every kernel cache key; "unknown" on failure.
std::string nvrtc_version_text();

} // namespace warpforge::gpu
