#include "gpu/runtime/sass_metrics.hpp"

#include "gpu/runtime/cuda_call.hpp"

#include <cupti_sass_metrics.h>

#include <map>
#include <memory>

namespace warpforge::gpu {

namespace {

constexpr std::uint32_t device_index = 0; // the runner's device

sass_failure failed(std::string step, call_error error) { return {std::move(step), std::move(error), false}; }

// Undoes cuptiSassMetricsSetConfig / cuptiSassMetricsEnable on every path out.
struct config_guard {
  ~config_guard() {
    CUpti_SassMetricsUnsetConfig_Params p{};
    p.structSize = CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE;
    p.deviceIndex = device_index;
    (void)cuptiSassMetricsUnsetConfig(&p);
  }
};
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

expected<sass_counter_sums, sass_failure> collect_sass_counters(CUcontext context, const std::string& chip,
                                                                const std::vector<std::string>& wanted,
                                                                const std::function<call_result()>& launch) {
  sass_counter_sums out;
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
    if (m.pMetricName != nullptr) {
      out.chip_counters.insert(m.pMetricName);
      ids.emplace(m.pMetricName, m.metricId);
    }

  std::vector<CUpti_SassMetrics_Config> configs;
  std::map<std::uint64_t, std::string> names;
  for (const auto& name : wanted)
    if (auto id = ids.find(name); id != ids.end()) {
      configs.push_back({id->second, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
      names.emplace(id->second, name);
      out.totals[name] = 0.0;
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
  config_guard unset_config;

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
  out.records = props.numOfPatchedInstructionRecords;
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
    for (const auto& record : records) {
      if (record.functionName != nullptr)
        out.functions.insert(record.functionName);
      for (std::size_t k = 0; k < props.numOfInstances; ++k)
        if (auto n = names.find(record.pInstanceValues[k].metricId); n != names.end())
          out.totals[n->second] += static_cast<double>(record.pInstanceValues[k].value);
    }
  }
  CUpti_SassMetricsDisable_Params off{};
  off.structSize = CUpti_SassMetricsDisable_Params_STRUCT_SIZE;
  off.ctx = context;
  disable.active = false;
  if (auto r = WARPFORGE_GPU_CALL(cuptiSassMetricsDisable(&off)); !r)
    return unexpected(failed("disabling SASS patching", r.error()));
  return out;
}

} // namespace warpforge::gpu
