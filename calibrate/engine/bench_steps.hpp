#pragma once
// The steps of measuring one parameter, behind one small interface: build a benchmark,
// disassemble it (build_steps: the host's tools, no GPU), run its trials, check its counters (the
// GPU's). measure_parameter (measure.hpp) is plain code over this interface, so it is unit-tested
// on a stand-in (tests/calibrate/engine/fake_steps.hpp). In a real run the host half is
// toolchain_steps.hpp (nvcc through the compile cache, cuobjdump) and the GPU half goes through
// the GPU's gpu_worker actor (actors/calibration_job.hpp), the only path to a GPU.
//
// Implementations must be thread-safe: the parameters of a run are measured side by side, one
// per GPU, each in its own job (thread), with its own gpu_slot.

#include "calibrate/bench/registry.hpp"
#include "calibrate/catalog.hpp"
#include "foundation/expected/expected.hpp"
#include "gpu/runner/program_run.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::calibrate {

/// One GPU a worker measures on.
struct gpu_slot {
  int ordinal = -1;  // CUDA ordinal on this host; -1: no GPU (build and SASS gate only)
  std::string uuid;  // pins the trials (CUDA_VISIBLE_DEVICES) and keys the GPU's lock
  std::string name;  // "NVIDIA H100 80GB HBM3"
  std::string arch;  // "sm_90"; empty: unknown (the benchmark's own arch is used)

  bool has_gpu() const { return ordinal >= 0; }
};

/// A benchmark program nvcc built (or the compile cache had).
struct built_benchmark {
  std::filesystem::path executable; // run in place, never modified
  std::string arch;                 // what nvcc built for: "sm_90", "sm_90a"
  bool cache_hit = false;           // answered from the compile cache
  std::string log;                  // nvcc's output (warnings); may be empty
};

/// Why there is no program.
enum class build_failure_kind {
  compile_error,     // nvcc rejected the source (deterministic: the benchmark's fault)
  toolchain_missing, // no nvcc on this host
  internal,          // nvcc was killed, the cache could not be written, ...
};
inline constexpr build_failure_kind all_build_failure_kinds[] = {
  build_failure_kind::compile_error, build_failure_kind::toolchain_missing, build_failure_kind::internal};
std::string_view to_string(build_failure_kind kind);
std::optional<build_failure_kind> build_failure_kind_from_string(std::string_view text);

struct build_failure {
  build_failure_kind kind = build_failure_kind::internal;
  std::string detail; // one line: what failed
  std::string log;    // nvcc's output, when it ran
};

/// One process run of a benchmark: one trial (it does its own warm-up).
struct trial_output {
  gpu::program_outcome outcome = gpu::program_outcome::failed;
  std::string output; // everything it printed (stdout and stderr), read for RESULT lines
  std::string detail; // why it did not pass; empty when it did
  double wall_s = 0;  // seconds from start to exit (or kill)
};

/// The host's half: no GPU is touched.
class build_steps {
public:
  virtual ~build_steps() = default;

  /// Builds `bench` for `arch` ("sm_90a").
  virtual expected<built_benchmark, build_failure> build(const benchmark& bench, const std::string& arch) = 0;

  /// The program's `cuobjdump -sass` listing; the error says why there is none (no tool, ...).
  virtual expected<std::string, std::string> disassemble(const built_benchmark& built) = 0;
};

/// All four steps: the host's and the GPU's.
class bench_steps : public build_steps {
public:
  /// `trials` runs of the program, one after another, pinned to `gpu`, under its lock and a
  /// watchdog; each trial's output is also kept in `log_dir` (trial-<n>.log). The error: it
  /// could not run at all (the GPU out of service, the program cannot start).
  virtual expected<std::vector<trial_output>, std::string> run_trials(const built_benchmark& built,
                                                                      const gpu_slot& gpu, std::uint32_t trials,
                                                                      const std::filesystem::path& log_dir) = 0;

  /// The parameter's validation metrics read once by the profiler, after the trials measured
  /// `measured` (in what.unit) on `gpu` (only called for a GPU whose trials gave a value): the
  /// verdict as the report shows it ("PASS ...", "MISMATCH: ...", "not validated: <why>").
  virtual std::string validate_counters(const built_benchmark& built, const parameter& what, double measured,
                                        const gpu_slot& gpu, const std::filesystem::path& log_dir) = 0;
};

} // namespace warpforge::calibrate
