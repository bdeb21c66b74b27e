#include "gpu/runtime/range_profiler.hpp"

#include "gpu/runtime/single_launch.hpp"
#include "gpu/runtime/counter_probe.hpp"
#include "gpu/runtime/cuda_call.hpp"
#include "gpu/runtime/kernel_activity.hpp"
#include "gpu/runtime/launch_attributes.hpp"
#include "gpu/runtime/phase_clock.hpp"
#include "gpu/runtime/sass_aggregates.hpp"
#include "gpu/runtime/sass_metrics.hpp"
#include "gpu/runtime/throughput_parts.hpp"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <unistd.h>
#include <vector>

namespace warpforge::gpu {

profile_status classify_cupti_failure(long long cupti_result) {
  switch (static_cast<CUptiResult>(cupti_result)) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return profile_status::counters_unavailable;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_INVALID_CHIP_NAME: return profile_status::not_supported;
    default: return profile_status::failed;
  }
}

namespace {

/// Every launch is one auto range; nothing is nested.
constexpr std::uint16_t nesting_level = 1;
/// The share of the device's free memory a batch's kernels may hold at once (their own buffers
/// and pristine inputs); a batch that needs more is profiled in parts.
constexpr double batch_memory_share = 0.4;

profile_result make_profile(const profile_request& request, profile_status status,
                            std::string note) {
  profile_result r;
  r.status = status;
  r.source = metric_source::cupti;
  r.replay = request.replay;
  r.note = std::move(note);
  return r;
}

// A load or launch failure of the kernel: not_supported when the device cannot run it.
profile_result from_candidate_failure(const profile_request& request, const launch_failure& f) {
  auto r = make_profile(request,
                        f.outcome == vocabulary::branch_outcome::not_supported ? profile_status::not_supported
                                                                      : profile_status::failed,
                        f.detail);
  for (const auto& note : f.notes)
    r.note += "; " + note;
  r.runner_exits = f.runner_exits;
  return r;
}

// A failed CUPTI call at `step`.
profile_result from_cupti_failure(const profile_request& request, const call_error& error,
                                  const std::string& step) {
  auto status = classify_cupti_failure(error.code);
  auto r = make_profile(request, status, step + ": " + error.to_string());
  if (status == profile_status::counters_unavailable)
    r.note += "; " + std::string{counter_permission_hint};
  if (error.code == CUPTI_ERROR_HARDWARE_BUSY)
    r.note += "; another profiler (ncu, a second runner profiling this GPU) holds the counters";
  return r;
}

std::vector<const char*> c_names(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const auto& name : names)
    out.push_back(name.c_str());
  return out;
}

// ---- host side: chip, host object, config image ----

struct host_deleter {
  void operator()(CUpti_Profiler_Host_Object* host) const {
    CUpti_Profiler_Host_Deinitialize_Params p{};
    p.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    p.pHostObject = host;
    (void)cuptiProfilerHostDeinitialize(&p);
  }
};
using host_handle = std::unique_ptr<CUpti_Profiler_Host_Object, host_deleter>;

struct chip_info {
  std::string name;                       // e.g. "GH100"
  std::vector<std::uint8_t> availability; // counter availability image of the context
};

expected<chip_info, call_error> read_chip(CUcontext context) {
  chip_info chip;
  CUpti_Device_GetChipName_Params name{};
  name.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
  name.deviceIndex = 0; // the runner profiles device 0 of those it sees
  if (auto r = WARPFORGE_GPU_CALL(cuptiDeviceGetChipName(&name)); !r)
    return unexpected(r.error());
  chip.name = name.pChipName ? name.pChipName : "";

  CUpti_Profiler_GetCounterAvailability_Params size{};
  size.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
  size.ctx = context;
  if (auto r = WARPFORGE_GPU_CALL(cuptiProfilerGetCounterAvailability(&size)); !r)
    return unexpected(r.error());
  chip.availability.resize(size.counterAvailabilityImageSize);
  CUpti_Profiler_GetCounterAvailability_Params image = size;
  image.pCounterAvailabilityImage = chip.availability.data();
  if (auto r = WARPFORGE_GPU_CALL(cuptiProfilerGetCounterAvailability(&image)); !r)
    return unexpected(r.error());
  return chip;
}

expected<host_handle, call_error> make_host(const chip_info& chip) {
  CUpti_Profiler_Host_Initialize_Params p{};
  p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.name.c_str();
  p.pCounterAvailabilityImage = chip.availability.data();
  if (auto r = WARPFORGE_GPU_CALL(cuptiProfilerHostInitialize(&p)); !r)
    return unexpected(r.error());
  return host_handle{p.pHostObject};
}

call_result add_metrics(CUpti_Profiler_Host_Object* host, const std::vector<std::string>& metrics) {
  auto names = c_names(metrics);
  CUpti_Profiler_Host_ConfigAddMetrics_Params p{};
  p.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
  p.pHostObject = host;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  return WARPFORGE_GPU_CALL(cuptiProfilerHostConfigAddMetrics(&p));
}

// The metrics the chip knows (with their type); each unknown one goes to `missing` with CUPTI's
// reason.
std::map<std::string, CUpti_MetricType> known_metrics(CUpti_Profiler_Host_Object* host,
                                                      const chip_info& chip,
                                                      const std::vector<std::string>& metrics,
                                                      std::map<std::string, std::string>& missing) {
  std::map<std::string, CUpti_MetricType> known;
  for (const auto& metric : metrics) {
    CUpti_Profiler_Host_GetMetricProperties_Params p{};
    p.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
    p.pHostObject = host;
    p.pMetricName = metric.c_str();
    if (auto r = WARPFORGE_GPU_CALL(cuptiProfilerHostGetMetricProperties(&p)); r)
      known.emplace(metric, p.metricType);
    else if (r.error().code == CUPTI_ERROR_INVALID_METRIC_NAME)
      missing[metric] = "not a metric of chip " + chip.name + " (CUPTI_ERROR_INVALID_METRIC_NAME)";
    else
      missing[metric] = "CUPTI cannot describe it: " + r.error().to_string();
  }
  return known;
}

// For a base name CUPTI knows but will not collect: the full names it offers ("; try one of
// <name>.sum, <name>.avg, ..."), or "" when there are none.
std::string submetric_hint(CUpti_Profiler_Host_Object* host, const std::string& metric,
                           CUpti_MetricType type) {
  constexpr std::size_t shown = 6;
  if (metric.find('.') != std::string::npos)
    return "";
  CUpti_Profiler_Host_GetSubMetrics_Params p{};
  p.structSize = CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE;
  p.pHostObject = host;
  p.metricType = type;
  p.pMetricName = metric.c_str();
  if (!WARPFORGE_GPU_CALL(cuptiProfilerHostGetSubMetrics(&p)) || p.numOfSubmetrics == 0)
    return "";
  std::string hint = "; a base name needs a suffix, e.g.";
  for (std::size_t i = 0; i < std::min(shown, p.numOfSubmetrics); ++i) {
    std::string_view suffix = p.ppSubMetrics[i]; // CUPTI gives ".ratio"; be safe without the dot
    hint += std::string{i == 0 ? " " : ", "} + metric + (suffix.starts_with('.') ? "" : ".") +
            std::string{suffix};
  }
  return hint;
}

struct metric_config {
  host_handle host;                 // evaluates the counter data later
  std::vector<std::string> metrics; // the ones scheduled (known and accepted)
  std::vector<std::uint8_t> image;  // config image: which counters in which pass
  std::size_t passes = 0;           // replay passes the image needs
};

// Host object + config image for the metrics the chip knows. A metric the config rejects is
// isolated by trying each alone on a scratch host object, and moved to `missing`.
expected<metric_config, call_error> build_config(const chip_info& chip,
                                                 const std::vector<std::string>& requested,
                                                 std::map<std::string, std::string>& missing) {
  metric_config config;
  auto host = make_host(chip);
  if (!host)
    return unexpected(host.error());
  auto known = known_metrics(host->get(), chip, requested, missing);
  for (const auto& metric : requested) // keep the request's order
    if (known.count(metric))
      config.metrics.push_back(metric);
  if (config.metrics.empty()) {
    config.host = std::move(*host);
    return config;
  }
  if (auto added = add_metrics(host->get(), config.metrics); !added) {
    std::vector<std::string> accepted;
    for (const auto& metric : config.metrics) {
      auto scratch = make_host(chip);
      if (!scratch)
        return unexpected(scratch.error());
      if (auto alone = add_metrics(scratch->get(), {metric}); alone)
        accepted.push_back(metric);
      else
        missing[metric] = "CUPTI cannot schedule it: " + alone.error().to_string() +
                          submetric_hint(host->get(), metric, known.at(metric));
    }
    config.metrics = std::move(accepted);
    host = make_host(chip); // a fresh object: the failed add may have left metrics behind
    if (!host)
      return unexpected(host.error());
    if (config.metrics.empty()) {
      config.host = std::move(*host);
      return config;
    }
    if (auto again = add_metrics(host->get(), config.metrics); !again)
      return unexpected(again.error()); // each alone was fine, together not: a real failure
  }
  config.host = std::move(*host);

  CUpti_Profiler_Host_GetConfigImageSize_Params size{};
  size.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
  size.pHostObject = config.host.get();
  if (auto r = WARPFORGE_GPU_CALL(cuptiProfilerHostGetConfigImageSize(&size)); !r)
    return unexpected(r.error());
  config.image.resize(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params image{};
  image.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
  image.pHostObject = config.host.get();
  image.configImageSize = config.image.size();
  image.pConfigImage = config.image.data();
  if (auto r = WARPFORGE_GPU_CALL(cuptiProfilerHostGetConfigImage(&image)); !r)
    return unexpected(r.error());
  CUpti_Profiler_Host_GetNumOfPasses_Params passes{};
  passes.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
  passes.configImageSize = config.image.size();
  passes.pConfigImage = config.image.data();
  if (auto r = WARPFORGE_GPU_CALL(cuptiProfilerHostGetNumOfPasses(&passes)); !r)
    return unexpected(r.error());
  config.passes = passes.numOfPasses;
  return config;
}

// build_config's answer for one chip and list of metrics: a campaign profiles every kernel with
// the same list, and the host object also evaluates every profile's counters.
struct kept_config {
  metric_config config;
  std::map<std::string, std::string> missing; // what build_config moved out of the list, and why
};

// What one profile reads or builds and the next can use again (chip_of, config_for), until a
// range profiler call fails (forget(): another tool may hold the counters now, so the next
// profile reads and builds afresh). No lock: the runner serves one request at a time.
struct profiler_memory {
  std::map<CUcontext, chip_info> chips;
  std::map<std::pair<std::string, std::vector<std::string>>, kept_config> configs;
  std::optional<metric_config> unkept; // the last configuration not worth keeping (below)

  void forget() {
    chips.clear();
    configs.clear();
  }
};

profiler_memory& kept_by_runner() {
  static profiler_memory memory;
  return memory;
}

// The chip and its counter availability, read once per context and kept (about 0.1 s a read on
// an H100, more with several runners profiling at once).
expected<const chip_info*, call_error> chip_of(CUcontext context) {
  auto& chips = kept_by_runner().chips;
  if (auto known = chips.find(context); known != chips.end())
    return &known->second;
  auto chip = read_chip(context);
  if (!chip)
    return unexpected(chip.error());
  return &chips.emplace(context, std::move(*chip)).first->second;
}

// A configuration is kept only when every metric it leaves out is one the chip does not know (a
// lasting answer), not one CUPTI could not describe or schedule this time.
bool worth_keeping(const kept_config& built) {
  return std::all_of(built.missing.begin(), built.missing.end(),
                     [](const auto& entry) { return entry.second.starts_with("not a metric of chip "); });
}

// The configuration for `requested` on `chip` (valid until the next call), and what it leaves
// out into `missing`.
expected<const metric_config*, call_error> config_for(const chip_info& chip, const std::vector<std::string>& requested,
                                                      std::map<std::string, std::string>& missing) {
  auto& memory = kept_by_runner();
  auto key = std::make_pair(chip.name, requested);
  auto found = memory.configs.find(key);
  if (found == memory.configs.end()) {
    kept_config fresh;
    auto built = build_config(chip, requested, fresh.missing);
    for (const auto& [name, why] : fresh.missing)
      missing[name] = why;
    if (!built)
      return unexpected(built.error()); // nothing kept: the next profile tries again
    fresh.config = std::move(*built);
    if (!worth_keeping(fresh)) {
      memory.unkept = std::move(fresh.config);
      return &*memory.unkept;
    }
    found = memory.configs.emplace(std::move(key), std::move(fresh)).first;
    return &found->second.config;
  }
  for (const auto& [name, why] : found->second.missing)
    missing[name] = why;
  return &found->second.config;
}

// ---- target side: range profiler object, counter data, passes ----

struct range_deleter {
  void operator()(CUpti_RangeProfiler_Object* object) const {
    CUpti_RangeProfiler_Disable_Params p{};
    p.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
    p.pRangeProfilerObject = object;
    (void)cuptiRangeProfilerDisable(&p); // fails after a lost context; the runner exits then
  }
};
using range_handle = std::unique_ptr<CUpti_RangeProfiler_Object, range_deleter>;

expected<range_handle, call_error> enable_range_profiler(CUcontext context) {
  CUpti_RangeProfiler_Enable_Params p{};
  p.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
  p.ctx = context;
  if (auto r = WARPFORGE_GPU_CALL(cuptiRangeProfilerEnable(&p)); !r)
    return unexpected(r.error());
  return range_handle{p.pRangeProfilerObject};
}

expected<std::vector<std::uint8_t>, call_error> make_counter_data(CUpti_RangeProfiler_Object* range,
                                                                  const std::vector<std::string>& metrics,
                                                                  std::size_t ranges) {
  auto names = c_names(metrics);
  CUpti_RangeProfiler_GetCounterDataSize_Params size{};
  size.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
  size.pRangeProfilerObject = range;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = ranges;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(ranges);
  if (auto r = WARPFORGE_GPU_CALL(cuptiRangeProfilerGetCounterDataSize(&size)); !r)
    return unexpected(r.error());
  std::vector<std::uint8_t> data(size.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{};
  init.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
  init.pRangeProfilerObject = range;
  init.counterDataSize = data.size();
  init.pCounterData = data.data();
  if (auto r = WARPFORGE_GPU_CALL(cuptiRangeProfilerCounterDataImageInitialize(&init)); !r)
    return unexpected(r.error());
  return data;
}

call_result set_config(CUpti_RangeProfiler_Object* range, const metric_config& config,
                       std::vector<std::uint8_t>& counter_data, profile_replay replay, std::size_t ranges) {
  CUpti_RangeProfiler_SetConfig_Params p{};
  p.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
  p.pRangeProfilerObject = range;
  p.configSize = config.image.size();
  p.pConfig = config.image.data();
  p.counterDataImageSize = counter_data.size();
  p.pCounterDataImage = counter_data.data();
  // One range per kernel launch, exactly the launch: a user range (push/pop) would also count the
  // front end's few microseconds before the kernel starts, and halve a 13 us kernel's percentages.
  p.range = CUPTI_AutoRange;
  p.replayMode = replay == profile_replay::kernel ? CUPTI_KernelReplay : CUPTI_UserReplay;
  p.maxRangesPerPass = ranges;
  p.numNestingLevels = nesting_level; // auto range: must be 1
  p.minNestingLevel = nesting_level;
  p.passIndex = 0;                      // application replay only
  p.targetNestingLevel = nesting_level; // application replay only
  return WARPFORGE_GPU_CALL(cuptiRangeProfilerSetConfig(&p));
}

call_result start(CUpti_RangeProfiler_Object* range) {
  CUpti_RangeProfiler_Start_Params p{};
  p.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
  p.pRangeProfilerObject = range;
  return WARPFORGE_GPU_CALL(cuptiRangeProfilerStart(&p));
}

expected<bool, call_error> stop(CUpti_RangeProfiler_Object* range) {
  CUpti_RangeProfiler_Stop_Params p{};
  p.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
  p.pRangeProfilerObject = range;
  if (auto r = WARPFORGE_GPU_CALL(cuptiRangeProfilerStop(&p)); !r)
    return unexpected(r.error());
  return p.isAllPassSubmitted != 0;
}

// ---- evaluation ----

call_result evaluate(CUpti_Profiler_Host_Object* host, const std::vector<std::uint8_t>& counter_data,
                     std::size_t range_index, const std::vector<std::string>& metrics, std::vector<double>& values) {
  auto names = c_names(metrics);
  values.assign(metrics.size(), std::nan(""));
  CUpti_Profiler_Host_EvaluateToGpuValues_Params p{};
  p.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
  p.pHostObject = host;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range_index;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  return WARPFORGE_GPU_CALL(cuptiProfilerHostEvaluateToGpuValues(&p));
}

// Every metric's value in range `range_index` into result.values; one that cannot be evaluated
// (or is not finite) goes to result.missing. All at once first, then one by one to isolate a
// failure.
void evaluate_all(const metric_config& config, const std::vector<std::uint8_t>& counter_data,
                  std::size_t range_index, profile_result& result) {
  auto record = [&](const std::string& metric, double value) {
    if (std::isfinite(value))
      result.values[metric] = value;
    else
      result.missing[metric] = "CUPTI evaluated it to a non-finite value (not collected)";
  };
  std::vector<double> values;
  if (evaluate(config.host.get(), counter_data, range_index, config.metrics, values)) {
    for (std::size_t i = 0; i < config.metrics.size(); ++i)
      record(config.metrics[i], values[i]);
    return;
  }
  for (const auto& metric : config.metrics) {
    if (auto r = evaluate(config.host.get(), counter_data, range_index, {metric}, values); r)
      record(metric, values.front());
    else
      result.missing[metric] = "CUPTI could not evaluate it: " + r.error().to_string();
  }
}

// One kernel of a batch of profiles: its request, its launch on buffers of its own, what it got.
struct member {
  const profile_request* request = nullptr;
  single_launch launch;
  profile_result result;
  std::string remarks;
  bool launched = false;               // launched once: the next launch starts from fresh inputs
  std::optional<profile_result> ended; // its answer, when it ended early (its kernel failed)

  bool alive() const { return !ended; }
  // Fresh inputs and poisoned outputs for the next launch, unless this is its first.
  std::optional<profile_result> fresh() {
    if (std::exchange(launched, true))
      if (auto f = launch.refresh())
        return from_candidate_failure(*request, *f);
    return std::nullopt;
  }
};

// Where member k's kernel is among the ranges of a pass, when each pass launches `stride` kernels
// per member: the L2 eviction's read sweep (user replay), then the member's kernel.
std::size_t range_of(std::size_t k, std::size_t stride) { return k * stride + stride - 1; }

// The range profiler's part, for every live member in one session: steps 4-7 for `metrics` (no
// launch__ or smsp__sass_ name), their values and gaps into each member's result, its passes and
// remarks into its remarks. A member whose kernel fails ends with that failure. A profile_result:
// the range profiler itself failed (for every member alike).
std::optional<profile_result> run_range_profiler(std::deque<member>& members, const std::vector<std::string>& metrics,
                                                 CUcontext context, const chip_info& chip, phase_clock& clock) {
  std::vector<member*> live;
  for (auto& m : members)
    if (m.alive())
      live.push_back(&m);
  if (live.empty())
    return std::nullopt;
  const profile_request& first = *live.front()->request; // all share the metrics and the replay
  auto remark = [&](const std::string& text) {
    for (auto* m : live)
      m->remarks += text;
  };

  // 4. Host object and config image.
  std::map<std::string, std::string> missing;
  auto config = config_for(chip, metrics, missing);
  for (auto* m : live)
    m->result.missing.insert(missing.begin(), missing.end());
  clock.mark("counter config");
  if (!config) {
    auto failed = from_cupti_failure(first, config.error(), "configuring the metrics");
    failed.missing = missing;
    return failed;
  }
  const metric_config& kept = **config;
  if (kept.metrics.empty()) {
    remark("; the range profiler knows none of the " + std::to_string(metrics.size()) + " counters asked of it");
    return std::nullopt;
  }
  // User replay evicts the L2 before every launch; its buffer is made first, so that a device too
  // full for it costs the flush (said in the note), not the profile.
  bool flush_before_launches = first.replay == profile_replay::user;
  if (flush_before_launches)
    if (auto buffer = live.front()->launch.workspace->flush_buffer(); !buffer) {
      flush_before_launches = false;
      remark("; L2 not flushed between passes (" + buffer.error().detail + ")");
    }
  // Every launch in the session is a range, the eviction's read sweep too: so many per member.
  const std::size_t stride = flush_before_launches ? 2 : 1;
  const std::size_t ranges = live.size() * stride;

  // A range profiler call that fails may mean another tool holds the counters now: what this
  // runner kept is read and built afresh by the next profile.
  auto cupti_failed = [&](const call_error& error, const std::string& step) {
    kept_by_runner().forget();
    return from_cupti_failure(first, error, step);
  };

  // 5. Range profiler, counter data, configuration.
  auto range = enable_range_profiler(context);
  if (!range)
    return cupti_failed(range.error(), "enabling the range profiler");
  auto counter_data = make_counter_data(range->get(), kept.metrics, ranges);
  if (!counter_data)
    return cupti_failed(counter_data.error(), "creating the counter data image");
  if (auto r = set_config(range->get(), kept, *counter_data, first.replay, ranges); !r)
    return cupti_failed(r.error(), "setting the range profiler's configuration");
  clock.mark("range profiler enabled");

  // 6. The passes. Kernel replay submits every pass in one start/stop (CUPTI restores what each
  // launch can reach); user replay needs one start/launches/stop per pass, every kernel from its
  // same inputs and an empty L2. The inputs are copied before the pass starts (copies and the
  // poison's fill kernels are no ranges then); the eviction runs inside it, right before its kernel.
  const std::size_t pass_limit = kept.passes + 1;
  std::size_t passes = 0;
  bool all_submitted = false;
  while (!all_submitted && passes < pass_limit) {
    for (auto* m : live)
      if (first.replay == profile_replay::user || passes == 0)
        if (auto f = m->fresh())
          return f;
    if (auto r = start(range->get()); !r)
      return cupti_failed(r.error(), "starting pass " + std::to_string(passes));
    for (auto* m : live) {
      if (flush_before_launches)
        if (auto f = m->launch.workspace->evict_l2_clean())
          return from_candidate_failure(first, *f);
      if (auto r = launch_and_wait(m->launch); !r) {
        // The session cannot go on. Where the context is lost too, the caller ends the other
        // kernels as not profiled (profile_candidates).
        m->ended = from_candidate_failure(*m->request, cuda_failure(r.error(), "kernel 0 '" + m->request->run.kernels.front().entry +
                                                                                 "' under the profiler (pass " +
                                                                                 std::to_string(passes) + ")"));
        return make_profile(first, profile_status::failed,
                            "kernel '" + m->request->run.kernels.front().entry +
                              "', profiled in the same session, failed: " + m->ended->note);
      }
    }
    auto stopped = stop(range->get());
    if (!stopped)
      return cupti_failed(stopped.error(), "stopping pass " + std::to_string(passes));
    all_submitted = *stopped;
    ++passes;
  }
  if (!all_submitted)
    return make_profile(first, profile_status::failed,
                        "CUPTI still wanted passes after " + std::to_string(passes) +
                          " launches; the config image announced " + std::to_string(kept.passes));
  clock.mark(std::to_string(passes) + " replayed launch(es)" + (live.size() > 1 ? " of " + std::to_string(live.size()) + " kernels" : ""));

  // 7. Decode, then evaluate each member's range.
  CUpti_RangeProfiler_DecodeData_Params decode{};
  decode.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
  decode.pRangeProfilerObject = range->get();
  if (auto r = WARPFORGE_GPU_CALL(cuptiRangeProfilerDecodeData(&decode)); !r)
    return cupti_failed(r.error(), "decoding the counter data");
  CUpti_RangeProfiler_GetCounterDataInfo_Params info{};
  info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
  info.pCounterDataImage = counter_data->data();
  info.counterDataImageSize = counter_data->size();
  if (auto r = WARPFORGE_GPU_CALL(cuptiRangeProfilerGetCounterDataInfo(&info)); !r)
    return cupti_failed(r.error(), "reading the counter data");
  // A range too few or too many would give a member another launch's counters.
  if (info.numTotalRanges != ranges || decode.numOfRangeDropped > 0)
    return make_profile(first, profile_status::failed,
                        "the counter data holds " + std::to_string(info.numTotalRanges) + " range(s), " +
                          std::to_string(decode.numOfRangeDropped) + " dropped; expected " + std::to_string(ranges) +
                          " (one per launch of the pass): the launches cannot be told apart");
  for (std::size_t k = 0; k < live.size(); ++k) {
    evaluate_all(kept, *counter_data, range_of(k, stride), live[k]->result);
    live[k]->result.passes = static_cast<std::uint32_t>(kept.passes);
  }
  clock.mark("evaluation");
  remark("; auto range, " + std::string{to_string(first.replay)} + " replay, " + std::to_string(passes) + " launch(es)");
  return std::nullopt;
}

// The launch attributes among `names`, from the CUBIN, the launch and the carveout the driver
// configured for one launch of the kernel (launch_attributes.hpp, kernel_activity.hpp). A
// profile_result: the kernel failed.
std::optional<profile_result> answer_launch_attributes(const profile_request& request,
                                                       const std::vector<std::string>& names,
                                                       single_launch& candidate, profile_result& result,
                                                       std::string& remarks) {
  std::optional<std::uint64_t> carveout;
  call_result launched;
  auto bytes = driver_shared_memory_config([&] { return launched = launch_and_wait(candidate); });
  if (!launched) // the kernel's own failure (a fault loses the context: the runner exits)
    return from_candidate_failure(request, cuda_failure(launched.error(), "kernel 0 '" +
                                                                            request.run.kernels.front().entry +
                                                                            "' with kernel activity records"));
  if (bytes) {
    carveout = *bytes;
    remarks += "; driver's shared memory configuration " + std::to_string(*bytes) + " bytes";
  }
  auto attributes = read_launch_attributes(candidate.kernel, carveout);
  if (!attributes) {
    for (const auto& name : names)
      result.missing[name] = "launch attributes: " + attributes.error();
    return std::nullopt;
  }
  std::map<std::string, double> all;
  for (const auto& [name, value] : nsight_values(attributes->occupancy))
    all.emplace(name, value);
  for (const auto& name : names) {
    // Without the carveout the driver chose, the shared-memory limit (and the waves it may set)
    // would be the device maximum's: up to 7x off on an H100 (32 KiB chosen, 228 KiB possible).
    if (!carveout && (name == "launch__occupancy_limit_shared_mem" || name == "launch__waves_per_multiprocessor")) {
      result.missing[name] = "not measured: the driver's shared-memory carveout for the launch could not be read (" +
                             bytes.error() + ")";
      continue;
    }
    result.values[name] = all.at(name);
  }
  if (!attributes->note.empty())
    remarks += "; " + attributes->note;
  return std::nullopt;
}

// The SASS aggregates among `names`, from one patched launch (sass_metrics.hpp). A profile_result:
// the kernel failed under patching.
std::optional<profile_result> answer_sass_aggregates(const profile_request& request, const std::vector<std::string>& names,
                                                     single_launch& candidate, CUcontext context, const chip_info& chip,
                                                     profile_result& result, std::string& remarks) {
  auto counts = collect_sass_counts(context, chip.name, [&] { return launch_and_wait(candidate); });
  if (!counts && counts.error().in_launch)
    return from_candidate_failure(request, cuda_failure(counts.error().error, "kernel 0 '" +
                                                                                request.run.kernels.front().entry +
                                                                                "' under SASS patching"));
  if (!counts) {
    for (const auto& name : names)
      result.missing[name] = "CUPTI SASS metrics, " + counts.error().step + ": " + counts.error().error.to_string();
    return std::nullopt;
  }
  if (counts->dropped_records > 0) { // an undercount would pass for a measurement
    for (const auto& name : names)
      result.missing[name] = "CUPTI SASS metrics dropped " + std::to_string(counts->dropped_records) +
                             " record(s) of the launch: the counts are incomplete";
    return std::nullopt;
  }
  auto evaluated = evaluate_sass_aggregates(names, counts->instructions, counts->collected);
  for (auto& [name, value] : evaluated.values)
    result.values[name] = value;
  for (auto& [name, why] : evaluated.missing)
    result.missing[name] = std::move(why);
  remarks += "; SASS metrics: 1 patched launch, " + std::to_string(counts->instructions.size()) + " instructions counted";
  if (counts->functions.size() > 1)
    remarks += ", " + std::to_string(counts->functions.size()) + " functions patched (all counted)";
  return std::nullopt;
}

} // namespace

expected<std::vector<profile_result>, std::string> profile_candidates(const std::vector<profile_request>& requests) {
  if (requests.empty())
    return unexpected(std::string{"profile_candidates: no profile asked for"});
  for (const auto& request : requests) {
    if (request.run.kernels.empty() || request.run.seeds.empty())
      return unexpected(std::string{"profile_candidates: each run needs a kernel and a seed"});
    if (request.metrics.empty())
      return unexpected(std::string{"profile_candidates: no metrics"});
    if (request.metrics != requests.front().metrics || request.replay != requests.front().replay)
      return unexpected(std::string{"profile_candidates: the profiles of one request share their metrics and replay mode"});
  }
  // An answer for every request alike (the device or the profiler cannot serve any of them).
  auto each = [&](auto&& make) {
    std::vector<profile_result> out;
    for (const auto& request : requests)
      out.push_back(make(request));
    return out;
  };
  phase_clock clock;
  double setup_s = 0.0;
  auto workspace = device_workspace::get(setup_s);
  if (!workspace)
    return unexpected(workspace.error());
  const device_session* device = &(*workspace)->device();
  clock.mark("set-up");

  // 1. Counter access: a restricted driver or an unsupported device is an answer.
  auto verdict = probe_counter_access(0, read_profiling_restriction(), static_cast<std::uint32_t>(::geteuid()));
  if (verdict.access == counter_access::restricted_admin_only)
    return each([&](const profile_request& r) {
      return make_profile(r, profile_status::counters_unavailable,
                          "counter access check: " + verdict.reason + "; " + counter_permission_hint);
    });
  if (verdict.access == counter_access::unsupported)
    return each([&](const profile_request& r) {
      return make_profile(r, profile_status::not_supported, "counter access check: " + verdict.reason);
    });

  // 3. Chip and counter availability, on the primary context (before any kernel of the batch).
  CUcontext context = nullptr;
  if (auto r = WARPFORGE_GPU_CALL(device->api->ctx_get_current(&context)); !r || !context)
    return each([&](const profile_request& req) {
      return make_profile(req, profile_status::failed,
                          "cuCtxGetCurrent: " + (r ? std::string{"no current context"} : r.error().to_string()));
    });
  if (auto init = cupti_profiler_initialized(); !init)
    return each([&](const profile_request& r) { return from_cupti_failure(r, init.error(), "initializing the CUPTI profiler"); });
  auto known_chip = chip_of(context);
  if (!known_chip)
    return each([&](const profile_request& r) {
      return from_cupti_failure(r, known_chip.error(), "reading the chip and counter availability");
    });
  const chip_info& chip = **known_chip;
  clock.mark("chip");

  // Each name goes to the source that answers it: the launch attributes, the SASS metrics, the
  // range profiler for the rest.
  std::vector<std::string> launch_names, sass_names, counter_names;
  for (const auto& metric : requests.front().metrics)
    (is_launch_attribute(metric) ? launch_names : is_sass_aggregate(metric) ? sass_names : counter_names)
      .push_back(metric);
  const auto plan = plan_counters(counter_names, chip.name); // sm__throughput from parts on a GH100

  // The kernels are ready at once, each on buffers of its own: as many as fit in a share of the
  // free memory (at least one), the rest in the next part.
  std::size_t free_bytes = 0, total_bytes = 0;
  (void)cudaMemGetInfo(&free_bytes, &total_bytes);
  const auto budget = static_cast<std::size_t>(batch_memory_share * static_cast<double>(free_bytes));
  std::vector<profile_result> results(requests.size());
  const std::string batch_remark =
    requests.size() > 1 ? "; profiled in one batch of " + std::to_string(requests.size()) : "";
  // A kernel that loses the CUDA context ends the batch: every kernel not profiled yet answers
  // not_profiled_note with its reason (the coordinator's keeper asks them again of a fresh runner).
  std::optional<std::string> lost;
  auto not_profiled = [&](const profile_request& request) {
    return make_profile(request, profile_status::failed, std::string{not_profiled_note} + *lost);
  };
  auto ends_the_batch = [&](std::deque<member>& members) {
    for (const auto& m : members)
      if (m.ended && m.ended->runner_exits && !lost)
        lost = "kernel '" + m.request->run.kernels.front().entry + "' of the same batch lost the CUDA context (" +
               m.ended->note + ")";
    if (!lost)
      return false;
    for (auto& m : members)
      if (m.alive())
        m.ended = not_profiled(*m.request);
    return true;
  };
  for (std::size_t begin = 0; begin < requests.size();) {
    if (lost) { // a part not started
      results[begin] = not_profiled(requests[begin]);
      ++begin;
      continue;
    }
    std::size_t end = begin, bytes = 0;
    do
      bytes += own_launch_bytes(requests[end++].run);
    while (end < requests.size() && bytes + own_launch_bytes(requests[end].run) <= budget);
    const std::string part_remark = end - begin < requests.size() ? " (in parts: the kernels' buffers did not fit at once)" : "";

    // 2. The kernels, as run_race prepares them.
    std::deque<member> members;
    for (std::size_t i = begin; i < end; ++i) {
      auto& m = members.emplace_back();
      m.request = &requests[i];
      m.result = make_profile(requests[i], profile_status::ok, "");
      m.remarks = "chip " + chip.name + batch_remark + part_remark;
      if (lost)
        m.ended = not_profiled(requests[i]);
      else if (auto f = prepare_single_launch(**workspace, requests[i].run, m.launch, buffer_home::own))
        m.ended = from_candidate_failure(requests[i], *f);
      ends_the_batch(members);
    }
    clock.mark("kernels and inputs");

    if (!launch_names.empty()) {
      for (auto& m : members)
        if (m.alive() && !ends_the_batch(members)) {
          if (auto f = m.fresh())
            m.ended = f;
          else if (auto ended = answer_launch_attributes(*m.request, launch_names, m.launch, m.result, m.remarks))
            m.ended = ended;
        }
      ends_the_batch(members);
      clock.mark("launch attributes");
    }
    if (!counter_names.empty() && !lost) {
      const auto ended_before = std::count_if(members.begin(), members.end(), [](const member& m) { return !m.alive(); });
      auto failure = run_range_profiler(members, plan.counters, context, chip, clock);
      ends_the_batch(members);
      // Another kernel of the session failed (its context kept): the others were not profiled
      // and may well be, asked again.
      const bool a_kernel_failed =
        std::count_if(members.begin(), members.end(), [](const member& m) { return !m.alive(); }) > ended_before;
      for (auto& m : members) {
        if (!m.alive())
          continue;
        if (failure && a_kernel_failed) {
          m.ended = make_profile(*m.request, profile_status::failed, std::string{not_profiled_note} + failure->note);
          continue;
        }
        if (failure && (failure->runner_exits || m.result.values.empty())) {
          // Nothing else was read: that is the answer, in the names asked for (a composite's, not
          // its parts').
          auto answer = make_profile(*m.request, failure->status, failure->note);
          answer.runner_exits = failure->runner_exits;
          answer.missing = m.result.missing;
          answer.missing.insert(failure->missing.begin(), failure->missing.end());
          compose_throughputs(plan, answer.values, answer.missing);
          m.ended = std::move(answer);
          continue;
        }
        if (failure) {
          // With the launch attributes already read they stay; the counters are named missing
          // with the range profiler's reason, and the SASS phase still runs.
          for (const auto& name : counter_names)
            if (!m.result.values.contains(name))
              m.result.missing.emplace(name, "range profiler: " + failure->note);
          m.remarks += "; range profiler failed (" + failure->note + ")";
        }
        compose_throughputs(plan, m.result.values, m.result.missing);
        if (std::any_of(plan.composed.begin(), plan.composed.end(),
                        [&](const std::string& name) { return m.result.values.contains(name); }))
          m.remarks += "; " + composed_remark(plan);
      }
    }
    if (!sass_names.empty() && !lost) {
      for (auto& m : members)
        if (m.alive() && !ends_the_batch(members)) {
          if (auto f = m.fresh())
            m.ended = f;
          else if (auto ended = answer_sass_aggregates(*m.request, sass_names, m.launch, context, chip, m.result, m.remarks))
            m.ended = ended;
        }
      ends_the_batch(members);
      clock.mark("SASS metrics");
    }
    for (std::size_t i = begin; i < end; ++i) {
      auto& m = members[i - begin];
      if (m.ended) {
        results[i] = std::move(*m.ended);
        continue;
      }
      m.result.note = m.remarks + "; clocks not locked; time: " + clock.text();
      if (m.result.values.empty()) {
        m.result.status = profile_status::not_supported;
        m.result.note = "none of the requested metrics can be collected on chip " + chip.name + " (see missing); " + m.remarks;
      }
      results[i] = std::move(m.result);
    }
    begin = end;
  }
  return results;
}

expected<profile_result, std::string> profile_candidate(const profile_request& request) {
  auto results = profile_candidates({request});
  if (!results)
    return unexpected(results.error());
  return std::move(results->front());
}

expected<std::string, std::string> warm_up_profiler() {
  phase_clock clock;
  double setup_s = 0.0;
  auto workspace = device_workspace::get(setup_s); // open already (runner_warm_up.cpp): no cost
  if (!workspace)
    return unexpected("the device did not open: " + workspace.error());
  if (auto init = cupti_profiler_initialized(); !init)
    return unexpected("CUPTI's profiler did not initialize: " + init.error().to_string());
  CUcontext context = nullptr;
  if (auto r = WARPFORGE_GPU_CALL((*workspace)->device().api->ctx_get_current(&context)); !r || !context)
    return unexpected(std::string{"no current context"});
  if (auto chip = chip_of(context); !chip)
    return unexpected("the chip's counters were not read: " + chip.error().to_string());
  clock.mark("profiler and chip");
  return clock.text();
}

} // namespace warpforge::gpu
