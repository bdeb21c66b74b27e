#pragma once
// The run_race request (docs/runner-protocol.md): several kernels of one problem (the same
// arguments), each checked against the reference on every seed, then timed together in
// interleaved rounds so drift hits all of them alike (docs/measurement.md). Coordinator side: no
// CUDA here; the runner's half is gpu/runtime/execute.hpp.
//
//   race_inputs inputs;                                   // kernels[0]: the incumbent, if any
//   inputs.kernels = {{incumbent_cubin, entry, launch}, {challenger_cubin, entry, launch}};
//   auto race = make_race_request(resolved, spec.reference, inputs);          // race_request
//   auto result = keeper.run(race, std::chrono::seconds{60});   // actors/runner_keeper.hpp
//   for (const auto& k : result->kernels) if (k.outcome == passed) use(k.stats.median_s);
//
// Two watchdogs: the runner's kernel watchdog (kernel_watchdog below: a hung launch ends the
// runner, which replies timeout first) and the coordinator's reply deadline (a backstop that
// scales with the race's kernels).

#include "config/dtype.hpp"
#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"
#include "foundation/expected/expected.hpp"
#include "gpu/check/compare.hpp"
#include "gpu/check/input_fill.hpp"
#include "gpu/json_error.hpp"
#include "gpu/stats/sample_stats.hpp"
#include "gpu/stats/stopping_rule.hpp"
#include "gpu/stats/timing_policy.hpp"
#include "gpu/stats/warmup_rule.hpp"
#include "foundation/vocabulary/branch.hpp"
#include "foundation/vocabulary/timing_mode.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace warpforge::gpu {

/// How long one candidate launch may run before the runner calls it hung: `reference_multiple`
/// times the reference kernel's own time (measured once per seed and kept), at least `floor_s`.
/// The reference itself may run `reference_limit_s`. Generous on purpose: a slow candidate is
/// measured, only one that never ends is stopped. (The coordinator's reply deadline stays as a
/// backstop for a runner that stops answering altogether.)
struct kernel_watchdog {
  double reference_multiple = 100.0;
  double floor_s = 2.0;            // seconds: launch noise and first-launch costs stay below it
  double reference_limit_s = 60.0; // seconds

  /// The limit for a candidate launch once the reference took `reference_s`.
  double candidate_limit_s(double reference_s) const;

  bool operator==(const kernel_watchdog&) const = default;
};

/// One kernel to launch: a CUBIN file the coordinator wrote, its entry and geometry.
struct kernel_launch {
  std::filesystem::path cubin_path;
  std::string entry;
  config::launch_geometry launch;

  bool operator==(const kernel_launch&) const = default;
};

struct candidate_buffer_arg {
  std::string name;
  config::dtype type = config::dtype::f32;
  std::uint64_t count = 0; // elements
  config::arg_role role = config::arg_role::input;
  config::init_spec init;  // input and inout
  config::tolerance tol;   // output and inout

  bool operator==(const candidate_buffer_arg&) const = default;
};

struct candidate_scalar_arg {
  std::string name;
  config::dtype type = config::dtype::i32;
  std::variant<std::int64_t, double> value; // double only for float dtypes

  bool operator==(const candidate_scalar_arg&) const = default;
};

using candidate_arg = std::variant<candidate_buffer_arg, candidate_scalar_arg>;

/// The body of a run_race request.
struct race_request {
  std::vector<kernel_launch> kernels;     // >= 1; results come back in this order. By convention
                                          // kernels[0] is the incumbent when the caller has one
  std::optional<kernel_launch> reference; // none: expected-values file (answered not_supported)
  std::vector<candidate_arg> args;        // in the kernels' parameter order, shared by all
  std::vector<std::uint64_t> seeds;       // input sets to check on, at least one (two advised)
  timing_policy timing;
  vocabulary::timing_mode mode = vocabulary::timing_mode::warm;
  kernel_watchdog watchdog;
  /// Re-verify cold, with nothing a kernel could have kept from before this request: every
  /// kernel's module is loaded afresh before its checks and before every round (its __device__
  /// globals start from the CUBIN's image each time), the working buffers are allocated for this
  /// request alone (new addresses, freed after it), the pristine inputs are generated again
  /// (never taken from the device cache), and the L2 is flushed before every launch (cold mode,
  /// whatever `mode` says). The checks and the verified timed launches are the same as always
  /// (docs/measurement.md, "Timed work is checked work"). Set by the physical-limit gate to
  /// re-measure a kernel that looked too fast; absent in the body = false.
  bool fresh = false;

  bool operator==(const race_request&) const = default;
};

/// How many seeds make_race_request checks on: the campaign's seed and seed + 1.
inline constexpr std::size_t default_check_seeds = 2;

/// What the coordinator knows besides the resolved problem.
struct race_inputs {
  std::vector<kernel_launch> kernels;                   // CUBIN, entry and launch of each
  std::optional<std::filesystem::path> reference_cubin; // none: reference kind file
  std::string reference_entry;
  /// The reference's geometry when the resolved problem does not say it (reference kind self:
  /// the baseline's launch at the default point); else problem.reference_launch, else
  /// problem.launch.
  std::optional<config::launch_geometry> reference_launch;
  std::uint64_t seed = 0;
  timing_policy timing;
  vocabulary::timing_mode mode = vocabulary::timing_mode::warm;
};

/// The request body for `problem` (arguments, tolerances from `reference`).
race_request make_race_request(const config::resolved_problem& problem,
                               const config::reference_spec& reference, const race_inputs& inputs);

/// A race of one kernel with the problem's own launch: what the single-candidate call sites send.
race_request make_single_kernel_race(const config::resolved_problem& problem,
                                     const config::reference_spec& reference,
                                     const std::filesystem::path& cubin, const std::string& entry,
                                     race_inputs inputs);

std::string encode_body(const race_request& request);
expected<race_request, json_error> decode_race_request(std::string_view body_json);

/// A kernel's median at one configuration of a problem measured at several
/// (gpu/runner/config_race.hpp).
struct config_median {
  std::string config;   // the configuration's name
  double weight = 0.0;  // its normalised weight, 1.0 = 100%
  double median_s = 0.0; // seconds

  bool operator==(const config_median&) const = default;
};

/// One kernel's verdict in a race.
struct kernel_result {
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run; // passed, incorrect,
                                         // runtime_error, not_supported, timeout, or not_run
                                         // (never reached: the runner ended on another kernel's
                                         // fault, detail says which)
  std::string detail;                    // why, when not passed: the CUDA error, the bad output
  std::optional<std::uint64_t> seed;     // the seed the failure showed on
  std::string arg;                       // the argument it concerns ("" when none)
  std::optional<compare_report> compare; // incorrect output: its comparison report
  std::optional<input_check> input;      // changed input: where
  sample_stats stats;                    // passed: the pooled samples; median_ci is the interval
                                         // that predicts a re-measurement (gpu/stats/round_stats.hpp)
  stop_decision decision = stop_decision::keep_going; // passed: why sampling stopped
  std::uint32_t rounds = 0;              // rounds this kernel was timed in
  double round_spread_s = 0.0;           // seconds: stddev of its per-round medians
  std::uint32_t batch_samples = 0;       // timed samples per round
  std::uint32_t warmup_launches = 0;     // launches the warm-up took
  warmup_decision warmup = warmup_decision::keep_going; // how the warm-up ended (keep_going: none ran)
  double kernel_s = 0.0;  // seconds of GPU time in this kernel's launches here (checks, warm-up,
                          // samples), from events: the numerator of "GPU busy"
  double load_s = 0.0;    // wall seconds loading its module
  double check_s = 0.0;   // wall seconds of its checks (copies, poison, launches, comparisons)
  double warmup_s = 0.0;  // wall seconds of its warm-up
  double timing_s = 0.0;  // wall seconds of its batches in the rounds
  std::vector<std::string> notes;
  std::vector<config_median> config_medians; // passed at several configurations: its median at
                                             // each, in the problem's order (stats hold their
                                             // weighted sum); empty for a single configuration

  bool operator==(const kernel_result&) const = default;
};

/// The outcome of one run_race request (the reply body).
struct race_result {
  std::vector<kernel_result> kernels;   // one per request kernel, same order, always complete
  double reference_s = 0.0;             // seconds, one reference launch (first seed); 0 = not run
  double watchdog_s = 0.0;              // the candidate launch limit that applied, seconds
  double sm_clock_hz_before = 0.0;      // Hz before the rounds, 0 = unknown (see notes)
  double sm_clock_hz_after = 0.0;       // Hz after them, 0 = unknown
  double inputs_s = 0.0;                // wall seconds generating the seeded inputs (0: all reused)
  double reference_wall_s = 0.0;        // wall seconds computing the reference's outputs (0: reused)
  double setup_s = 0.0;                 // wall seconds of one-time runner set-up (the check
                                        // kernels' build or load; 0 after the first request)
  double rounds_wall_s = 0.0;           // wall seconds of the interleaved rounds, all kernels
  double wall_s = 0.0;                  // wall seconds of the whole request inside the runner
  std::optional<std::size_t> ended_by;  // the kernel whose fault or hang ended the runner
  bool runner_exits = false;            // the CUDA context is lost, or a kernel hangs: the runner
                                        // exits after this reply
  std::vector<std::string> notes;

  bool operator==(const race_result&) const = default;
};

std::string encode_body(const race_result& result);
expected<race_result, json_error> decode_race_result(std::string_view body_json);

} // namespace warpforge::gpu
