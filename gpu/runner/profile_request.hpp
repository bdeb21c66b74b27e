#pragma once
// The profile_candidate request (docs/runner-protocol.md): hardware metrics for one launch of a
// candidate, named as Nsight Compute names them (dram__throughput.avg.pct_of_peak_sustained_elapsed,
// gpu__time_duration.sum, ...). Coordinator side, no CUDA here. Two metric sources answer it with
// the same profile_result: the runner's CUPTI range profiler (gpu/runtime/range_profiler.hpp,
// through runner_client::profile) and, when CUPTI cannot, ncu driving `warpforge-runner --execute`
// (gpu/runner/ncu_profile.hpp).
//
//   profile_request request{run, {"dram__throughput.avg.pct_of_peak_sustained_elapsed"}};
//   auto result = runner.profile(request, std::chrono::seconds{120}); // expected<profile_result>
//   if (result && result->status == profile_status::ok) use(result->values);
//
// Profiling is separate from timing: the candidate is launched only for the profiler's passes,
// and nothing here is a timing sample (docs/measurement.md, "Metrics").

#include "foundation/expected/expected.hpp"
#include "gpu/json_error.hpp"
#include "gpu/runner/race_request.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

/// How the profiler re-runs the kernel when the metrics need several passes.
enum class profile_replay : std::uint8_t {
  kernel, // CUPTI saves and restores device memory and replays the launch itself
  user,   // the runner re-uploads the seed's inputs (and poisoned outputs) before every pass
};
inline constexpr std::array all_profile_replays{profile_replay::kernel, profile_replay::user};
std::string_view to_string(profile_replay replay);
std::optional<profile_replay> profile_replay_from_string(std::string_view text);

/// What became of a profile request.
enum class profile_status : std::uint8_t {
  ok,                   // the launch was profiled; `values` holds every metric that has one
  counters_unavailable, // the driver forbids counter access to this user (RmProfilingAdminOnly)
  not_supported,        // no requested metric is known to this chip, the device cannot be
                        // profiled (vGPU, CMP, ...), or the launch does not fit the device
  failed,               // anything else: the kernel failed, a profiler call failed (see note)
};
inline constexpr std::array all_profile_statuses{profile_status::ok,
                                                 profile_status::counters_unavailable,
                                                 profile_status::not_supported,
                                                 profile_status::failed};
std::string_view to_string(profile_status status);
std::optional<profile_status> profile_status_from_string(std::string_view text);

/// Who measured the values.
enum class metric_source : std::uint8_t {
  cupti, // the runner's CUPTI range profiler
  ncu,   // Nsight Compute's CLI around `warpforge-runner --execute`
};
inline constexpr std::array all_metric_sources{metric_source::cupti, metric_source::ncu};
std::string_view to_string(metric_source source);
std::optional<metric_source> metric_source_from_string(std::string_view text);

/// The body of a profile_candidate request.
struct profile_request {
  /// The kernel (run.kernels[0]; any others are ignored), its arguments and seeds, as for
  /// run_race. Inputs are generated from run.seeds.front() exactly as run_race generates them;
  /// the reference, the other seeds, the timing policy and the mode are not used.
  race_request run;
  std::vector<std::string> metrics; // full Nsight metric names (base name + suffix), no duplicates
  profile_replay replay = profile_replay::kernel;

  bool operator==(const profile_request&) const = default;
};

/// The reply body. Values keep the unit Nsight gives the metric in its base form: percent for
/// *.pct_of_peak_*, nanoseconds for gpu__time_duration (nsecond), bytes, cycles, counts, ...
/// (`ncu --query-metrics` lists them); the metric's name says which.
struct profile_result {
  profile_status status = profile_status::failed;
  metric_source source = metric_source::cupti;
  profile_replay replay = profile_replay::kernel;
  std::map<std::string, double> values;       // metric name → finite value (unit above)
  std::map<std::string, std::string> missing; // metric name → why it has no value (unknown to
                                              // this chip, not a number, not in ncu's output)
  std::uint32_t passes = 0; // replay passes the collection took (0 when none ran)
  std::string note;         // why, when not ok (with what to do); else remarks such as dropped
                            // ranges
  bool runner_exits = false; // the CUDA context is lost: the runner exits after this reply

  bool operator==(const profile_result&) const = default;
};

std::string encode_body(const profile_request& request);
expected<profile_request, json_error> decode_profile_request(std::string_view body_json);

std::string encode_body(const profile_result& result);
expected<profile_result, json_error> decode_profile_result(std::string_view body_json);

/// How the note of a batch's profile that was never taken begins: another kernel of its batch
/// lost the CUDA context first (status failed, runner_exits false). Asked again of a fresh
/// runner, it may well be profiled (actors/runner_keeper).
inline constexpr std::string_view not_profiled_note = "not profiled: ";
inline bool left_unprofiled(const profile_result& r) {
  return r.status == profile_status::failed && !r.runner_exits && r.note.starts_with(not_profiled_note);
}

/// The profile_candidates request (several kernels profiled in one batch, range_profiler.hpp):
/// {"profiles": [profile_request, ...]}, at least one, all with the same metrics and replay; its
/// reply {"results": [profile_result, ...]}, one per profile in their order.
std::string encode_body(const std::vector<profile_request>& requests);
expected<std::vector<profile_request>, json_error> decode_profile_requests(std::string_view body_json);
std::string encode_body(const std::vector<profile_result>& results);
expected<std::vector<profile_result>, json_error> decode_profile_results(std::string_view body_json);

} // namespace warpforge::gpu
