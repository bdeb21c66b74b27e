#pragma once
// The real bench_steps: what `warpforge calibrate` runs on a GPU host.
//   build        nvcc through the host's compile cache (gpu/compile/nvcc_compiler), as
//                `warpforge program` builds a program
//   disassemble  cuobjdump -sass on the executable (sass/disassembler: nvdisasm reads only a bare
//                CUBIN, so cuobjdump is taken from beside it), re-printed as one listing
//   run_trials   gpu::run_program pinned to the GPU (CUDA_VISIBLE_DEVICES = its UUID), under the
//                GPU's lock (gpu/runner/gpu_lock) and a per-trial watchdog
//   counters     two ncu passes on the benchmark under the GPU's lock (counter_check.hpp):
//                count its launches, then read the validation metrics of the last one

#include "calibrate/engine/bench_steps.hpp"
#include "calibrate/engine/counter_check.hpp"
#include "calibrate/engine/run_options.hpp"
#include "gpu/compile/nvcc_compiler.hpp"
#include "sass/disassembly.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace warpforge::calibrate {

struct toolchain_steps_options {
  std::chrono::milliseconds trial_watchdog = default_trial_watchdog; // per trial
  std::chrono::milliseconds lock_timeout = default_lock_timeout;     // waiting for a busy GPU
  std::string holder = "warpforge calibrate";                        // what a refused process is told
  // The ncu that validates counters; nullopt: locate_ncu() ($PATH, then $CUDA_HOME/bin).
  std::optional<std::filesystem::path> ncu;
  std::chrono::milliseconds ncu_timeout = default_ncu_pass_timeout; // per ncu pass
};

/// A disassembly re-printed as cuobjdump lays it out ("Function : <name>", then one
/// "/*0040*/  FFMA R1, R2, R3, R4 ;" line per instruction): what the SASS gate reads.
std::string listing_text(const sass::disassembly& listing);

class toolchain_steps final : public bench_steps {
public:
  /// Finds nvcc (a host without it still gets an object: every build then fails as
  /// toolchain_missing, naming why).
  explicit toolchain_steps(toolchain_steps_options options);

  expected<built_benchmark, build_failure> build(const benchmark& bench, const std::string& arch) override;
  expected<std::string, std::string> disassemble(const built_benchmark& built) override;
  expected<std::vector<trial_output>, std::string> run_trials(const built_benchmark& built, const gpu_slot& gpu,
                                                              std::uint32_t trials,
                                                              const std::filesystem::path& log_dir) override;
  std::string validate_counters(const built_benchmark& built, const parameter& what, double measured,
                                const gpu_slot& gpu, const std::filesystem::path& log_dir) override;

private:
  toolchain_steps_options options_;
  std::optional<gpu::program_compiler> compiler_;
  std::string no_compiler_; // why compiler_ is empty
};

} // namespace warpforge::calibrate
