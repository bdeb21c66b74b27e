#pragma once
// The host's half of the steps (bench_steps.hpp), what `warpforge calibrate` builds with:
//   build        nvcc through the host's compile cache (gpu/compile/nvcc_compiler), as
//                `warpforge program` builds a program
//   disassemble  cuobjdump -sass on the executable (sass/disassembler: nvdisasm reads only a bare
//                CUBIN, so cuobjdump is taken from beside it), re-printed as one listing
// The GPU's half (trials, counters) goes through the GPU's gpu_worker (actors/calibration_job.hpp);
// trial_outputs() below turns what the worker ran into what the engine reads.

#include "calibrate/engine/bench_steps.hpp"
#include "gpu/compile/nvcc_compiler.hpp"
#include "gpu/runner/program_run.hpp"
#include "sass/disassembly.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::calibrate {

/// A disassembly re-printed as cuobjdump lays it out ("Function : <name>", then one
/// "/*0040*/  FFMA R1, R2, R3, R4 ;" line per instruction): what the SASS gate reads.
std::string listing_text(const sass::disassembly& listing);

/// The trials of a program run as the engine reads them: each trial's whole output from
/// `log_dir`/trial-<n>.log (a sweep prints more lines than the trial's kept tail), else its tail.
std::vector<trial_output> trial_outputs(const std::vector<gpu::program_trial>& trials,
                                        const std::filesystem::path& log_dir);

class toolchain_steps final : public build_steps {
public:
  /// Finds nvcc (a host without it still gets an object: every build then fails as
  /// toolchain_missing, naming why).
  toolchain_steps();

  expected<built_benchmark, build_failure> build(const benchmark& bench, const std::string& arch) override;
  expected<std::string, std::string> disassemble(const built_benchmark& built) override;

private:
  std::optional<gpu::program_compiler> compiler_;
  std::string no_compiler_; // why compiler_ is empty
};

} // namespace warpforge::calibrate
