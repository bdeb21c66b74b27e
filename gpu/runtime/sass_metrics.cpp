#include "gpu/runtime/sass_metrics.hpp"

#include "gpu/runtime/cuda_call.hpp"

#include <cupti_sass_metrics.h>

#include <map>
#include <mutex>
#include <optional>
#include <tuple>

namespace warpforge::gpu {

namespace {

constexpr std::uint32_t device_index = 0; // the runner's device

sass_failure failed(std::string step, call_error error) { return {std::move(step), std::move(error), false}; }

// The configuration of the process: the counters and their ids. Set once, never unset (see the
// header): the runner profiles one device, whose counters do not change.
struct configuration {
  std::set<std::string> collected;
  std::map<std::uint64_t, std::string> names; // metric id -> counter
};

std::mutex configuring;
std::optional<configuration> configured;

expected<configuration, sass_failure> configure(const std::string& chip) {
  CUpti_SassMetrics_GetNumOfMetrics_Params count{};
  count.structSize = CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE;
  count.pChipName = chip.c_str();
  if (auto r = WARPFORGE_GPU_CALL(cuptiSassMetricsGetNumOfMetrics(&count)); !r)
    return unexpected(failed("counting the chip's SASS metrics", r.error()));
  std::vector<CUpti_SassMetrics_MetricDetails> listed(count.numOfMetrics);
  CUpti_SassMetrics_GetMetrics_Params list{};
  list.structSize = CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE;
  list.pChipName = chip.c_str();
  list.numOfMetrics = listed.size();
  list.pMetricsList = listed.data();
  if (auto r = WARPFORGE_GPU_CALL(cuptiSassMetricsGetMetrics(&list)); !r)
    return unexpected(failed("listing the chip's SASS metrics", r.error()));
  std::map<std::string, std::uint64_t> ids;
  for (const auto& m : listed)
    if (m.pMetricName != nullptr)
      ids.emplace(m.pMetricName, m.metricId);

  configuration out;
  std::vector<CUpti_SassMetrics_Config> configs;
  for (const auto& counter : sass_counters_for({}))
    if (auto id = ids.find(counter); id != ids.end()) {
      configs.push_back({id->second, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
      out.names.emplace(id->second, counter);
      out.collected.insert(counter);
    }
  if (configs.empty())
    return out;
  CUpti_SassMetricsSetConfig_Params set{};
  set.structSize = CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE;
  set.numOfMetricConfig = configs.size();
  set.pConfigs = configs.data();
  set.deviceIndex = device_index;
  if (auto r = WARPFORGE_GPU_CALL(cuptiSassMetricsSetConfig(&set)); !r)
    return unexpected(failed("configuring the SASS metrics", r.error()));
  return out;
}

// Undoes cuptiSassMetricsEnable on every path out.
struct enable_guard {
  CUcontext context = nullptr;
  bool active = true;
  ~enable_guard() {
    if (!active)
      return;
    CUpti_SassMetricsDisable_Params p{};
    p.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
    p.ctx = context;
    (void)cuptiSassMetricsDisable(&p); // fails after a lost context; the runner exits then
  }
};

} // namespace

expected<sass_counts, sass_failure> collect_sass_counts(CUcontext context, const std::string& chip,
                                                        const std::function<call_result()>& launch) {
  std::lock_guard lock{configuring};
  if (!configured) {
    auto c = configure(chip);
    if (!c)
      return unexpected(c.error());
    configured = std::move(*c);
  }
  sass_counts out;
  out.collected = configured->collected;
  if (out.collected.empty())
    return out;

  CUpti_SassMetricsEnable_Params enable{};
  enable.structSize = CUpti_SassMetricsEnable_Params_STRUCT_SIZE;
  enable.ctx = context;
  enable.enableLazyPatching = 1; // patch only what launches in the range: the one kernel
  if (auto r = WARPFORGE_GPU_CALL(cuptiSassMetricsEnable(&enable)); !r)
    return unexpected(failed("enabling SASS patching", r.error()));
  enable_guard disable{context};

  if (auto r = launch(); !r)
    return unexpected(sass_failure{"the patched launch", r.error(), true});

  CUpti_SassMetricsGetDataProperties_Params props{};
  props.structSize = CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE;
  props.ctx = context;
  if (auto r = WARPFORGE_GPU_CALL(cuptiSassMetricsGetDataProperties(&props)); !r)
    return unexpected(failed("reading the SASS data's size", r.error()));
  if (props.numOfPatchedInstructionRecords > 0 && props.numOfInstances > 0) {
    std::vector<CUpti_SassMetrics_Data> records(props.numOfPatchedInstructionRecords);
    std::vector<CUpti_SassMetrics_InstanceValue> instances(props.numOfPatchedInstructionRecords *
                                                           props.numOfInstances);
    for (std::size_t i = 0; i < records.size(); ++i) {
      records[i].structSize = sizeof(CUpti_SassMetrics_Data);
      records[i].pInstanceValues = &instances[i * props.numOfInstances];
    }
    CUpti_SassMetricsFlushData_Params flush{};
    flush.structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;
    flush.ctx = context;
    flush.numOfPatchedInstructionRecords = records.size();
    flush.numOfInstances = props.numOfInstances;
    flush.pMetricsData = records.data();
    if (auto r = WARPFORGE_GPU_CALL(cuptiSassMetricsFlushData(&flush)); !r)
      return unexpected(failed("flushing the SASS data", r.error()));
    // A record is one instruction's values of one or more counters; an instruction may come in
    // several records (one per counter): merged by function and pc.
    std::map<std::tuple<std::string, std::uint32_t>, sass_instruction> by_pc;
    for (const auto& record : records) {
      const std::string function = record.functionName != nullptr ? record.functionName : "";
      out.functions.insert(function);
      auto& instruction = by_pc[{function, record.pcOffset}];
      instruction.pc_offset = record.pcOffset;
      for (std::size_t k = 0; k < props.numOfInstances; ++k)
        if (auto n = configured->names.find(record.pInstanceValues[k].metricId); n != configured->names.end())
          instruction.counters[n->second] += static_cast<double>(record.pInstanceValues[k].value);
    }
    for (auto& [where, instruction] : by_pc)
      out.instructions.push_back(std::move(instruction));
  }
  CUpti_SassMetricsDisable_Params off{};
  off.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
  off.ctx = context;
  disable.active = false;
  if (auto r = WARPFORGE_GPU_CALL(cuptiSassMetricsDisable(&off)); !r)
    return unexpected(failed("disabling SASS patching", r.error()));
  out.dropped_records = off.numOfDroppedRecords;
  return out;
}

} // namespace warpforge::gpu
