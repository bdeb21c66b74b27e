#pragma once
// Kernels travel to a remote host as source and options, never as a CUBIN (docs/hosts.md, "Which
// compiles where"). The coordinator compiles every kernel itself (its SASS check and code check
// read the CUBIN), so its compile step knows, for each CUBIN it made, the request that made it:
// the ledger keeps that, keyed by the CUBIN's content (SHA-256 of its bytes). A race bound for a
// remote GPU names its kernels by the coordinator's CUBIN paths; builds_for() turns each into the
// compile request the host compiles again with its own NVRTC and content cache (rebuild_on_host).
//
//   auto ledger = std::make_shared<kernel_ledger>();
//   compile = ledger->recording(compile);                 // the coordinator's compile function
//   auto builds = ledger->builds_for(race.request);       // for the host
//   on the host: rebuild_on_host(race.request, builds, host_compile, work_dir / "kernels");

#include "foundation/expected/expected.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/runner/race_request.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace warpforge::pipeline {

/// How one CUBIN of a race was made: the path the race names it by, and its compile request.
struct kernel_build {
  std::string cubin_path;        // the coordinator's CUBIN
  gpu::compile_request request;  // its source, entry, arch, defines, flags
  std::string cubin_sha256;      // of the coordinator's CUBIN bytes (the host's key for it)
  friend bool operator==(const kernel_build&, const kernel_build&) = default;
};

class kernel_ledger {
public:
  using compile_function = std::function<gpu::compile_result(const gpu::compile_request&)>;

  /// `compile`, remembering the request of every CUBIN it returns. Thread-safe.
  compile_function recording(compile_function compile);
  /// Remembers that `cubin` was made by `request`.
  void remember(const gpu::compile_request& request, const std::vector<std::uint8_t>& cubin);

  /// Each distinct CUBIN of `request` (its kernels, and its reference kernel) with the compile
  /// request that made it. The error names a CUBIN that cannot be read or was not made here.
  expected<std::vector<kernel_build>, std::string> builds_for(const gpu::race_request& request) const;

  std::size_t size() const;

private:
  mutable std::mutex mutex_;
  std::map<std::string, gpu::compile_request> by_cubin_; // SHA-256 of the CUBIN -> its request
};

/// On the host: compiles each build (`compile`: its NVRTC through its content cache), writes the
/// CUBIN under `kernel_dir` (named by the coordinator's CUBIN hash) and points the race's kernels
/// at the host's CUBINs. The error names the kernel that did not compile here and why.
using host_compile_function = std::function<gpu::compile_result(const gpu::compile_request&)>;
expected<void, std::string> rebuild_on_host(gpu::race_request& request, const std::vector<kernel_build>& builds,
                                            const host_compile_function& compile,
                                            const std::filesystem::path& kernel_dir);

} // namespace warpforge::pipeline
