#pragma once
// What the GPU benchmarks of tests/bench share: the runner to use, the GPU it sees, and a
// kernel compiled to a CUBIN file. Benchmarks print; nothing here asserts.

#include "actors/runner_keeper.hpp"
#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"
#include "gpu/device_report.hpp"
#include "gpu/runner/race_request.hpp"

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace warpforge::bench {

double seconds_since(std::chrono::steady_clock::time_point start);

/// The runner `flag` names, else the one gpu::locate_runner finds; nullopt after printing why not.
std::optional<std::filesystem::path> runner_executable(const std::optional<std::filesystem::path>& flag);

/// The first GPU a fresh runner reports; nullopt after printing "no usable GPU: <why>".
std::optional<gpu::device_info> first_gpu(const gpu::runner_options& runner);

/// Compiles `kernel` at `resolved`'s defines for `arch` into `cubin` with NVRTC: the compile's
/// seconds, or -1 after printing the log.
double compile_to(const config::kernel_spec& kernel, const config::resolved_problem& resolved,
                  const std::string& arch, const std::filesystem::path& cubin);

/// A fresh folder under the temp directory, removed with everything in it when this ends (on every
/// way out of a bench, early ones included).
class scratch_folder {
public:
  /// nullopt after printing why mkdtemp failed.
  static std::optional<scratch_folder> make(const std::string& prefix);
  scratch_folder(scratch_folder&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  scratch_folder(const scratch_folder&) = delete;
  scratch_folder& operator=(const scratch_folder&) = delete;
  scratch_folder& operator=(scratch_folder&&) = delete;
  ~scratch_folder();
  const std::filesystem::path& path() const { return path_; }

private:
  explicit scratch_folder(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
};

/// A runner keeper whose runner is up (printing its events and how long the start took), or
/// nullptr after printing why it would not start.
std::unique_ptr<actors::runner_keeper> started_keeper(const actors::runner_keeper_options& options);

/// The kernel the problem's outputs are checked against: its reference kernel, else its own.
const config::kernel_spec& reference_kernel(const config::problem_spec& spec);

/// A race's inputs before its kernels: the reference (to be compiled to dir/reference.cubin) and
/// the benches' fixed seed.
gpu::race_inputs inputs_with_reference(const config::problem_spec& spec, const config::resolved_problem& resolved,
                                       const std::filesystem::path& dir);

} // namespace warpforge::bench
