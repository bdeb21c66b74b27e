#pragma once
// Which counters a profile needs and where they come from (docs/measurement.md, "Metrics"): the
// request's metric-schema keys become Nsight names (a derived key asks for the measured metrics
// its formula reads; no keys: every measured key of the schema), and the primary tool collects
// them ([profile] tool, config::profile_tool):
//   cupti (default): the runner answers everything itself: CUPTI's range profiler for the
//     counters, CUPTI's SASS Metrics API for the smsp__sass_* metrics, the CUBIN and the driver
//     for the launch__* attributes. Nsight Compute is asked only when CUPTI cannot profile at all
//     (counters_unavailable, not_supported, failed, the runner could not answer), when it is
//     here; not when the kernel itself faulted or hung under the profiler (ncu would see the
//     same). With ncu_supplement::ask, metrics CUPTI left without a value (a broadcast load's
//     bytes per sector, a chip whose SASS metrics lack a counter) are asked of ncu too; the
//     source stays cupti and the note says how many ncu supplied.
//   ncu: Nsight Compute for everything (~2 s of start-up per profile); CUPTI only when ncu is not
//     here or cannot profile at all, named in the note.
// Values come back in schema units; the note says why any requested metric has no value. Clocks
// are never locked, by either source.
//
//   cupti_source cupti{[&](const profile_request& r) { return keeper.profile(r, timeout); }};
//   auto ncu = ncu_source::locate(options);                  // nullopt: no ncu here
//   metric_set set = collect_metrics(request, keys, cupti, ncu ? &*ncu : nullptr, schema,
//                                    ncu_supplement::skip, config::profile_tool::cupti);

#include "config/campaign_spec.hpp"
#include "diagnosis/metric_schema.hpp"
#include "diagnosis/ncu_csv.hpp"
#include "foundation/expected/expected.hpp"
#include "gpu/runner/ncu_profile.hpp"
#include "gpu/runner/profile_request.hpp"
#include "gpu/runner/runner_client.hpp"
#include "gpu/runner/worker_service.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::gpu {

/// One metric-schema key's value, in the schema's unit.
struct metric_value {
  std::string key;
  double value = 0;
  friend bool operator==(const metric_value&, const metric_value&) = default;
};

/// The counters of one launch, in schema keys.
struct metric_set {
  std::optional<metric_source> source; // who measured them; none: nothing could be read
  std::vector<metric_value> values;
  std::string note;                    // why metrics are missing, which source filled in
  // out_of_service: the GPU's worker took no work (its host is lost, its runner gave up), nothing
  // was tried and another GPU may profile instead
  worker_service service = worker_service::in_service;
  std::string why_out_of_service; // the worker's reason, when out of service
  friend bool operator==(const metric_set&, const metric_set&) = default;
};

/// A profile its GPU's worker could not take (`why`): nothing was tried, another GPU may profile.
metric_set out_of_service_metrics(const std::string& why);

/// Where counters come from. An error: the source could not answer at all (its reason); a
/// status other than ok is an answer (counters restricted, not supported...).
class counter_source {
public:
  virtual ~counter_source() = default;
  virtual metric_source kind() const = 0;
  virtual expected<profile_result, std::string> collect(const profile_request& request) = 0;
  /// Whether the failed attempt is worth asking another source about (not when the kernel
  /// itself faulted or hung under the profiler).
  virtual bool worth_a_second_opinion(const expected<profile_result, std::string>& attempt) const;
};

/// The runner's CUPTI range profiler, reached through `ask` (the worker's runner keeper).
class cupti_source final : public counter_source {
public:
  using ask_runner = std::function<expected<profile_result, runner_error>(const profile_request&)>;
  explicit cupti_source(ask_runner ask) : ask_(std::move(ask)) {}
  metric_source kind() const override { return metric_source::cupti; }
  expected<profile_result, std::string> collect(const profile_request& request) override;
  /// Not after a reply timeout: the kernel hung under the profiler.
  bool worth_a_second_opinion(const expected<profile_result, std::string>& attempt) const override;

private:
  ask_runner ask_;
  bool last_timed_out_ = false;
};

/// Nsight Compute's CLI around a one-shot `warpforge-runner --execute` (gpu/runner/ncu_profile.hpp).
class ncu_source final : public counter_source {
public:
  explicit ncu_source(ncu_options options) : options_(std::move(options)) {}
  /// The ncu executable: `configured` when set (an empty path: none), else the first `ncu` on
  /// PATH or in the CUDA home's bin/.
  static std::optional<std::filesystem::path> locate(const std::optional<std::filesystem::path>& configured);
  metric_source kind() const override { return metric_source::ncu; }
  expected<profile_result, std::string> collect(const profile_request& request) override;

private:
  ncu_options options_;
};

/// The Nsight names a profile must collect for metric-schema `keys`.
struct nsight_selection {
  std::vector<std::string> names;        // to collect, in schema order, no duplicates
  std::vector<std::string> unknown_keys; // keys the schema does not know, in the order asked
};

/// `keys` as Nsight names: a measured key gives its own name, a derived key the names of the
/// measured metrics its formula reads (transitively); empty `keys`: every measured metric.
nsight_selection nsight_names_for(const std::vector<std::string>& keys, const diagnosis::metric_schema& schema);

/// The metric_set from what a source answered: `result`'s Nsight values (base units) mapped to
/// schema keys, restricted to `selection.names`. `note` starts the set's note; every requested
/// metric without a value is then named with the reason, and so is every unknown key.
metric_set metric_set_from(metric_source source, const profile_result& result, const nsight_selection& selection,
                           const diagnosis::metric_schema& schema, std::string note);

/// With tool cupti: whether ncu is asked for the metrics CUPTI answered without a value. The
/// runner answers every metric of the schema on chips whose CUPTI has the SASS counters, except
/// a bytes-per-sector ratio over broadcast loads (docs/measurement.md, "SASS aggregates"), so
/// with `ask` ncu starts only for such kernels, and with `skip` never.
enum class ncu_supplement : std::uint8_t {
  ask,  // CUPTI's values, then ncu for any CUPTI left without a value
  skip, // CUPTI's values alone; the rest are named in the note as not collected
};

/// The policy above. `launch.run` is the launch to profile; its `metrics` are replaced by the
/// selection. `ncu` may be null (not installed). `supplement` applies to tool cupti only.
metric_set collect_metrics(profile_request launch, const std::vector<std::string>& keys, counter_source& cupti,
                           counter_source* ncu, const diagnosis::metric_schema& schema,
                           ncu_supplement supplement = ncu_supplement::ask,
                           config::profile_tool tool = config::profile_tool::cupti);

/// Asks the runner to profile several launches in one batch (runner_client::profile of a vector).
using ask_runner_batch =
  std::function<expected<std::vector<profile_result>, runner_error>(const std::vector<profile_request>&)>;

/// The policy above for several launches on one GPU, one metric_set each, in order. With tool
/// cupti their CUPTI attempts are one batch of the runner's (one range profiler session for all,
/// gpu/runtime/range_profiler.hpp), then each launch goes on as collect_metrics goes (ncu where
/// the policy asks for it, one launch at a time). With tool ncu each launch goes as in
/// collect_metrics (a CUPTI fallback is a batch of one).
std::vector<metric_set> collect_metrics(std::vector<profile_request> launches, const std::vector<std::string>& keys,
                                        const ask_runner_batch& ask, counter_source* ncu,
                                        const diagnosis::metric_schema& schema,
                                        ncu_supplement supplement = ncu_supplement::ask,
                                        config::profile_tool tool = config::profile_tool::cupti);

} // namespace warpforge::gpu
