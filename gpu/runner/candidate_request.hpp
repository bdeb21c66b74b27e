#pragma once
// The run_candidate request (docs/runner-protocol.md): what the coordinator asks a runner to
// execute (a candidate CUBIN, the reference CUBIN, the arguments, seeds, a timing policy) and the
// typed result it gets back. Coordinator side: no CUDA here; the runner's half is
// gpu/runtime/execute.hpp.
//
//   auto body = make_candidate_request(resolved, spec.reference, inputs);   // candidate_request
//   auto result = runner.run_candidate(body, std::chrono::seconds{60});    // candidate_result
//   if (result && result->outcome == vocabulary::branch_outcome::passed) use(result->stats.median_s);
//
// The watchdog is the coordinator's: run_candidate's timeout kills a runner stuck in a kernel.

#include "config/dtype.hpp"
#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"
#include "expected/expected.hpp"
#include "gpu/check/compare.hpp"
#include "gpu/check/input_fill.hpp"
#include "gpu/json_error.hpp"
#include "gpu/stats/sample_stats.hpp"
#include "gpu/stats/stopping_rule.hpp"
#include "vocabulary/branch.hpp"
#include "vocabulary/timing_mode.hpp"

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
/// times the reference kernel's own time (measured in the same request), at least `floor_s`.
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

/// The body of a run_candidate request.
struct candidate_request {
  kernel_launch candidate;
  std::optional<kernel_launch> reference; // none: expected-values file (answered not_supported)
  std::vector<candidate_arg> args;        // in the kernels' parameter order
  std::vector<std::uint64_t> seeds;       // input sets to check on, at least one (two advised)
  timing_policy timing;
  vocabulary::timing_mode mode = vocabulary::timing_mode::warm;
  kernel_watchdog watchdog;

  bool operator==(const candidate_request&) const = default;
};

/// How many seeds make_candidate_request checks on: the campaign's seed and seed + 1.
inline constexpr std::size_t default_check_seeds = 2;

/// What the coordinator knows besides the resolved problem.
struct candidate_inputs {
  std::filesystem::path candidate_cubin;
  std::string candidate_entry;
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
candidate_request make_candidate_request(const config::resolved_problem& problem,
                                         const config::reference_spec& reference,
                                         const candidate_inputs& inputs);

std::string encode_body(const candidate_request& request);
expected<candidate_request, json_error> decode_candidate_request(std::string_view body_json);

/// The outcome of one run_candidate request (the reply body).
struct candidate_result {
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::runtime_error;
  std::string detail;                    // why, when not passed: the CUDA error, the bad output
  std::optional<std::uint64_t> seed;     // the seed the failure showed on
  std::string arg;                       // the argument it concerns ("" when none)
  std::optional<compare_report> compare; // incorrect output: its comparison report
  std::optional<input_check> input;      // changed input: where
  sample_stats stats;                    // passed: the timing samples' statistics
  stop_decision decision = stop_decision::keep_going; // passed: why sampling stopped
  double wall_s = 0.0;                   // seconds the timing loop took (flushes, syncs included)
  double sm_clock_hz_before = 0.0;       // Hz, 0 = unknown (see notes)
  double sm_clock_hz_after = 0.0;        // Hz, 0 = unknown
  double reference_s = 0.0;              // one reference launch (first seed), seconds; 0 = not run
  double watchdog_s = 0.0;               // the candidate launch limit that applied, seconds
  bool runner_exits = false;             // the CUDA context is lost: the runner exits after this
  std::vector<std::string> notes;
};

std::string encode_body(const candidate_result& result);
expected<candidate_result, json_error> decode_candidate_result(std::string_view body_json);

} // namespace warpforge::gpu
