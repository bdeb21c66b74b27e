#pragma once
// What the coordinator's host offers for compiling and inspecting kernels, for `warpforge doctor`:
// the CUDA home, NVRTC's version (the coordinator compiles with NVRTC itself), and where the
// command-line tools are. A tool is looked for on PATH first, then in $CUDA_HOME/bin.

#include "foundation/expected/expected.hpp"
#include "gpu/call_check.hpp"

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::json {
class writer;
}

namespace warpforge::gpu {

/// The default CUDA home when $CUDA_HOME is unset.
inline const std::filesystem::path default_cuda_home{"/usr/local/cuda"};

enum class cuda_tool { nvcc, ptxas, nvdisasm, cuobjdump, ncu };

inline constexpr std::array all_cuda_tools{cuda_tool::nvcc, cuda_tool::ptxas, cuda_tool::nvdisasm,
                                           cuda_tool::cuobjdump, cuda_tool::ncu};

std::string_view to_string(cuda_tool tool);
std::optional<cuda_tool> cuda_tool_from_string(std::string_view text);

struct tool_location {
  cuda_tool tool = cuda_tool::nvcc;
  std::optional<std::filesystem::path> path; // where it was found; nullopt: missing
};

/// The inputs of a probe, so tests can set them.
struct toolchain_environment {
  std::optional<std::string> cuda_home; // $CUDA_HOME
  std::optional<std::string> path;      // $PATH
  static toolchain_environment from_process();
};

struct toolchain_report {
  std::filesystem::path cuda_home;     // $CUDA_HOME, else default_cuda_home
  bool cuda_home_from_env = false;     // true when $CUDA_HOME set it
  bool cuda_home_exists = false;       // the directory exists
  int nvrtc_major = 0;                 // 0 when NVRTC could not be asked
  int nvrtc_minor = 0;
  std::optional<call_error> nvrtc_error; // why nvrtcVersion failed
  std::vector<tool_location> tools;    // one per cuda_tool, in all_cuda_tools order

  const tool_location& find(cuda_tool tool) const;
};

/// First executable `name` on `path_env` (colon-separated), else in <cuda_home>/bin.
std::optional<std::filesystem::path> find_tool(std::string_view name,
                                               const std::optional<std::string>& path_env,
                                               const std::filesystem::path& cuda_home);

toolchain_report probe_toolchain(const toolchain_environment& env);
toolchain_report probe_toolchain();

void write_json(json::writer& out, const toolchain_report& report);
std::string to_text(const toolchain_report& report);

} // namespace warpforge::gpu
