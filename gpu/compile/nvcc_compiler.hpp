#pragma once
// Program mode: a whole .cu with main() → an executable, built by nvcc (as a child process with
// a deadline) and kept in the same compile_cache as kernels. nvcc's stdout+stderr is the log.
// Uses compile_request's source, source_name, arch, defines, include_dirs, extra_flags,
// line_info and std (the same canonical options as kernel mode); `entry` is ignored.

#include "foundation/expected/expected.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "gpu/compile/compile_options.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"

#include <chrono>
#include <filesystem>
#include <string>

namespace warpforge::gpu {

/// How long one nvcc build may take before it is killed (an internal failure, not cached).
inline constexpr std::chrono::seconds nvcc_build_timeout{300};
/// How long `nvcc --version` may take.
inline constexpr std::chrono::seconds nvcc_version_timeout{30};

struct compiled_program {
  std::filesystem::path executable; // inside the cache entry; run it in place, never modify it
  std::string log;                  // nvcc's output (warnings); may be empty
  double compile_s = 0;             // wall time of the nvcc build, seconds; 0 on a cache hit
  bool cache_hit = false;
};

using program_result = expected<compiled_program, compile_failure>;

class program_compiler {
public:
  /// Asks `nvcc --version` once (its text is part of every key); fails if nvcc cannot run.
  static expected<program_compiler, compile_failure>
  create(compile_cache cache, std::filesystem::path nvcc,
         std::chrono::milliseconds timeout = nvcc_build_timeout);
  /// nvcc from probe_toolchain() (PATH, then $CUDA_HOME/bin).
  static expected<program_compiler, compile_failure> from_toolchain(compile_cache cache);

  /// Builds (or finds in the cache) the executable for `request`. Thread-safe.
  program_result compile(const compile_request& request) const;
  std::string key_for(const compile_request& request) const;
  const std::string& nvcc_version() const { return nvcc_version_; }
  const compile_cache& cache() const { return cache_; }

private:
  program_compiler(compile_cache cache, std::filesystem::path nvcc, std::string version,
                   std::chrono::milliseconds timeout);

  compile_cache cache_;
  std::filesystem::path nvcc_;
  std::string nvcc_version_; // `nvcc --version` output
  std::chrono::milliseconds timeout_;
};

} // namespace warpforge::gpu
