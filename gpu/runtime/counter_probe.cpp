#include "gpu/runtime/counter_probe.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/runtime/cuda_call.hpp"

#include <cupti_profiler_target.h>

#include <fstream>
#include <sstream>
#include <vector>

namespace warpforge::gpu {

namespace {
constexpr std::string_view admin_only_key = "RmProfilingAdminOnly";
}

profiling_restriction parse_nvidia_params(std::string_view text) {
  std::istringstream lines{std::string{text}};
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(admin_only_key, 0) != 0)
      continue;
    auto colon = line.find(':', admin_only_key.size());
    if (colon == std::string::npos)
      break;
    std::istringstream value{line.substr(colon + 1)};
    int flag = -1;
    if (!(value >> flag) || (flag != 0 && flag != 1))
      return {false, false, "unreadable line '" + line + "'"};
    return {true, flag == 1, ""};
  }
  return {false, false, std::string{admin_only_key} + " not present"};
}

profiling_restriction read_profiling_restriction(const std::filesystem::path& params) {
  std::ifstream in{params};
  if (!in)
    return {false, false, params.string() + " is not readable (no NVIDIA driver?)"};
  std::ostringstream text;
  text << in.rdbuf();
  auto result = parse_nvidia_params(text.str());
  if (!result.known)
    result.detail = params.string() + ": " + result.detail;
  return result;
}

constexpr vocabulary::enum_word<availability_query> availability_query_words[] = {
    {availability_query::not_tried, "not_tried"},
    {availability_query::succeeded, "succeeded"},
    {availability_query::insufficient_privileges, "insufficient_privileges"},
    {availability_query::failed, "failed"},
};
static_assert(vocabulary::covers(availability_query_words, all_availability_queries));

std::string_view to_string(availability_query query) { return vocabulary::word_of(availability_query_words, query); }

std::optional<availability_query> availability_query_from_string(std::string_view text) {
  return vocabulary::value_of(availability_query_words, text);
}

counter_verdict decide_counter_access(const counter_evidence& e) {
  auto uid = std::to_string(e.effective_uid);
  auto restriction = e.restriction.known
                       ? std::string{"RmProfilingAdminOnly="} + (e.restriction.admin_only ? "1" : "0")
                       : "RmProfilingAdminOnly unknown (" + e.restriction.detail + ")";
  bool restricted_by_driver = e.restriction.known && e.restriction.admin_only && e.effective_uid != 0;

  if (e.device_supported == false)
    return {counter_access::unsupported, "CUPTI profiler does not support this device: " +
                                           e.support_detail};
  if (e.availability == availability_query::insufficient_privileges)
    return {counter_access::restricted_admin_only,
            "CUPTI counter availability: insufficient privileges (" + restriction + ", euid " +
              uid + "); run as root or set NVreg_RestrictProfilingToAdminUsers=0"};
  if (restricted_by_driver)
    return {counter_access::restricted_admin_only,
            "RmProfilingAdminOnly=1 and euid " + uid +
              " is not root; set NVreg_RestrictProfilingToAdminUsers=0 or run as root"};
  if (!e.device_supported)
    return {counter_access::unknown, "CUPTI device support query failed: " + e.support_detail};
  switch (e.availability) {
    case availability_query::succeeded:
      return {counter_access::readable, "CUPTI supports the device and counter availability was "
                                        "read (" + restriction + ", euid " + uid + ")"};
    case availability_query::failed:
      return {counter_access::unknown,
              "CUPTI counter availability query failed: " + e.availability_detail};
    case availability_query::not_tried:
    case availability_query::insufficient_privileges: break;
  }
  return {counter_access::unknown, "CUPTI supports the device; counter availability not queried (" +
                                     e.availability_detail + ")"};
}

namespace {

std::string_view support_level_text(CUpti_Profiler_Support_Level level) {
  switch (level) {
    case CUPTI_PROFILER_CONFIGURATION_UNKNOWN: return "UNKNOWN";
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "UNSUPPORTED";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "DISABLED";
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "SUPPORTED";
  }
  return "?";
}

} // namespace

const call_result& cupti_profiler_initialized() {
  static const call_result result = [] {
    CUpti_Profiler_Initialize_Params params{CUpti_Profiler_Initialize_Params_STRUCT_SIZE, nullptr};
    return WARPFORGE_GPU_CALL(cuptiProfilerInitialize(&params));
  }();
  return result;
}

counter_verdict probe_counter_access(int ordinal, const profiling_restriction& restriction,
                                     std::uint32_t effective_uid) {
  counter_evidence e;
  e.restriction = restriction;
  e.effective_uid = effective_uid;
  if (const auto& init = cupti_profiler_initialized(); !init) {
    e.support_detail = init.error().to_string();
    return decide_counter_access(e);
  }

  CUpti_Profiler_DeviceSupported_Params support{};
  support.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
  support.cuDevice = ordinal; // CUdevice handles are the driver's ordinals, which cudart's follow
  support.api = CUPTI_PROFILER_RANGE_PROFILING;
  if (auto r = WARPFORGE_GPU_CALL(cuptiProfilerDeviceSupported(&support)); !r) {
    e.support_detail = r.error().to_string();
  } else {
    e.device_supported = support.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    std::vector<std::pair<std::string_view, CUpti_Profiler_Support_Level>> checks{
      {"architecture", support.architecture}, {"sli", support.sli},
      {"vgpu", support.vGpu},                 {"confidential_compute", support.confidentialCompute},
      {"cmp", support.cmp},                   {"wsl", support.wsl}};
    for (const auto& [name, level] : checks) {
      if (level == CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        continue;
      if (!e.support_detail.empty())
        e.support_detail += ", ";
      e.support_detail += std::string{name} + "=" + std::string{support_level_text(level)};
    }
  }

  if (e.device_supported == true) {
    CUpti_Profiler_GetCounterAvailability_Params availability{};
    availability.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    availability.ctx = nullptr; // the current context
    if (auto r = WARPFORGE_GPU_CALL(cuptiProfilerGetCounterAvailability(&availability)); r) {
      e.availability = availability_query::succeeded;
    } else {
      e.availability = r.error().code == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
                         ? availability_query::insufficient_privileges
                         : availability_query::failed;
      e.availability_detail = r.error().to_string();
    }
  }
  return decide_counter_access(e);
}

} // namespace warpforge::gpu
