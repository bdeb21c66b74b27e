#pragma once
// From a problem spec to compiled kernels: read a kernel's source, build its NVRTC request at the
// problem's resolved point for a GPU's architecture, and write the CUBIN where the runner reads
// it. Shared by bench and diagnose.

#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"
#include "expected/expected.hpp"
#include "gpu/compile/compile_options.hpp"
#include "gpu/device_report.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace warpforge::cli {

/// The architecture to compile for when neither the spec nor a GPU says which.
inline constexpr std::string_view fallback_arch = "sm_90";

struct kernel_source {
  std::filesystem::path path;
  std::string entry;
  std::vector<std::string> flags; // extra compiler flags from the spec
  std::string text;               // the source itself
};

/// Reads `path`; the error names the file and the reason.
expected<kernel_source, std::string> read_kernel(const std::filesystem::path& path, std::string entry,
                                                 std::vector<std::string> flags);

/// The spec's `arch` when it sets one, else the device's, else fallback_arch.
std::string arch_for(const config::problem_spec& spec, const gpu::device_info* device);

/// The NVRTC request for `kernel` at `problem`'s point (its -D defines) for `arch`.
gpu::compile_request compile_request_for(const kernel_source& kernel, const std::string& arch,
                                         const config::resolved_problem& problem);

/// Writes `cubin` to `file` (creating its folder); the error names the file.
expected<void, std::string> write_cubin(const std::filesystem::path& file,
                                        const std::vector<std::uint8_t>& cubin);

} // namespace warpforge::cli
