#pragma once
// Can this process read GPU performance counters? Two sources of evidence, combined by one pure
// function (decide_counter_access) so every combination is unit-tested without a GPU:
//   - CUPTI: cuptiProfilerDeviceSupported (architecture, vGPU, SLI, confidential compute, CMP,
//     WSL) and cuptiProfilerGetCounterAvailability on the current context, which fails with
//     CUPTI_ERROR_INSUFFICIENT_PRIVILEGES when the driver restricts counters to admins;
//   - the driver's RmProfilingAdminOnly in /proc/driver/nvidia/params, and our effective uid.

#include "gpu/call_check.hpp"
#include "gpu/device_report.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::gpu {

inline const std::filesystem::path default_nvidia_params_path{"/proc/driver/nvidia/params"};

/// The driver's counter restriction (RmProfilingAdminOnly).
struct profiling_restriction {
  bool known = false;      // the file was read and had the key
  bool admin_only = false; // RmProfilingAdminOnly: 1
  std::string detail;      // why it is not known
};

/// Parses the text of /proc/driver/nvidia/params ("RmProfilingAdminOnly: 1" lines).
profiling_restriction parse_nvidia_params(std::string_view text);
profiling_restriction read_profiling_restriction(
  const std::filesystem::path& params = default_nvidia_params_path);

/// What cuptiProfilerGetCounterAvailability said.
enum class availability_query { not_tried, succeeded, insufficient_privileges, failed };

inline constexpr std::array all_availability_queries{
  availability_query::not_tried, availability_query::succeeded,
  availability_query::insufficient_privileges, availability_query::failed};

std::string_view to_string(availability_query query);
std::optional<availability_query> availability_query_from_string(std::string_view text);

/// Everything the verdict depends on.
struct counter_evidence {
  profiling_restriction restriction;
  std::uint32_t effective_uid = 0;
  std::optional<bool> device_supported; // CUPTI's verdict; nullopt: the query itself failed
  std::string support_detail;           // the failing sub-checks, or the call error
  availability_query availability = availability_query::not_tried;
  std::string availability_detail;      // the call error when it failed
};

struct counter_verdict {
  counter_access access = counter_access::unknown;
  std::string reason;
};

counter_verdict decide_counter_access(const counter_evidence& evidence);

/// cuptiProfilerInitialize, once per process (the range profiler needs it too); its result is
/// remembered.
const call_result& cupti_profiler_initialized();

/// Gathers the CUPTI evidence for `ordinal` (whose primary context must be current) and decides.
counter_verdict probe_counter_access(int ordinal, const profiling_restriction& restriction,
                                     std::uint32_t effective_uid);

} // namespace warpforge::gpu
