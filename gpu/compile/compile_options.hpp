#pragma once
// What the compiler stage is asked to build, and the one canonical option list derived from it.
// The same list is passed to NVRTC (kernel mode), to nvcc (program mode) and hashed into the
// cache key, so two requests that compile the same way share one cache entry.

#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

/// The architecture compiled for when neither the spec nor a GPU says which (a host without a GPU
/// still compiles and checks every kernel for it).
inline constexpr std::string_view fallback_arch = "sm_90";

/// One preprocessor definition: `-D<name>=<value>`, or `-D<name>` when value is empty.
struct macro_define {
  std::string name;
  std::string value;
  friend bool operator==(const macro_define&, const macro_define&) = default;
};

/// A candidate kernel (or, in program mode, a whole .cu with main()) to compile.
struct compile_request {
  std::string source;                    // CUDA C++ text
  std::string source_name = "kernel.cu"; // the name NVRTC/nvcc messages use for the source
  std::string entry;                     // the __global__ kernel as the problem names it
                                         // (config/kernel_entry.hpp); unused in program mode
  std::string arch = "sm_90";            // real target ("sm_90", "sm_90a"): CUBIN needs sm_XX
  std::vector<macro_define> defines;     // in order; a later define of the same name wins
  std::vector<std::string> include_dirs; // -I, in order: the project's include folders, absolute;
                                         // every header read from them is checked and keyed
                                         // (include_check.hpp walk_included_headers)
  std::vector<std::string> extra_flags;  // passed as is, after everything else
  bool line_info = true;                 // -lineinfo: SASS ↔ source lines for profilers
  std::string std = "c++17";             // --std=<std>
  friend bool operator==(const compile_request&, const compile_request&) = default;
};

/// The canonical option list, in this order: --gpu-architecture=<arch>, --std=<std>,
/// -lineinfo (when line_info), -I<dir>..., -D<name>[=<value>]..., extra_flags...
/// Both nvcc and NVRTC accept every one of these spellings.
std::vector<std::string> canonical_options(const compile_request& request);

/// The options joined with single spaces, for logs and meta.json.
std::string join_options(const std::vector<std::string>& options);

} // namespace warpforge::gpu
