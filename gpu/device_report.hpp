#pragma once
// What a warpforge-runner sees of its host's GPUs: the answer to the runner's device_query and
// to `warpforge-runner --query`. Plain data with no CUDA types, so the coordinator (doctor, the
// gpu_worker) can hold, print and serialise it without linking any device code; the runner fills
// it in gpu/runtime/device_query.cpp.
//
// A value the runner could not determine is 0 (or empty) and a line in `notes` says why; no
// number here is ever estimated.

#include "foundation/expected/expected.hpp"
#include "gpu/json_error.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::json {
class writer;
}

namespace warpforge::gpu {

/// Whether the runner could use any GPU at all.
enum class gpu_status {
  ok,        // at least one device answered
  no_driver, // libcuda.so.1 absent, or older than the CUDA runtime warpforge was built with
  no_device, // a driver, but no (visible) device
  error,     // any other failure; see host_report::reason
};

inline constexpr std::array all_gpu_statuses{gpu_status::ok, gpu_status::no_driver,
                                             gpu_status::no_device, gpu_status::error};

std::string_view to_string(gpu_status status);
std::optional<gpu_status> gpu_status_from_string(std::string_view text);

/// Whether this process can read the GPU's performance counters (CUPTI profiling API).
enum class counter_access {
  readable,              // CUPTI supports the device and this user may read counters
  restricted_admin_only, // the driver's RmProfilingAdminOnly=1 and this user is not root
  unsupported,           // CUPTI's profiler does not support this device/configuration
  unknown,               // could not tell; see device_info::counter_reason
};

inline constexpr std::array all_counter_accesses{counter_access::readable,
                                                 counter_access::restricted_admin_only,
                                                 counter_access::unsupported,
                                                 counter_access::unknown};

std::string_view to_string(counter_access access);
std::optional<counter_access> counter_access_from_string(std::string_view text);

/// One GPU as the CUDA runtime sees it (ordinals follow CUDA_VISIBLE_DEVICES).
struct device_info {
  int ordinal = -1;                                 // CUDA runtime device ordinal
  std::string name;                                 // e.g. "NVIDIA H100 80GB HBM3"
  std::string uuid;                                 // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  std::string pci_bus_id;                           // "0000:3b:00.0"
  int sm_major = 0;                                 // compute capability, major
  int sm_minor = 0;                                 // compute capability, minor
  std::uint64_t memory_bytes = 0;                   // total global memory, bytes
  int sm_count = 0;                                 // streaming multiprocessors
  std::uint64_t l2_bytes = 0;                       // L2 cache, bytes
  std::uint64_t shared_memory_per_block_optin_bytes = 0; // opt-in max shared memory/block, bytes
  int registers_per_sm = 0;                         // 32-bit registers per SM
  int max_threads_per_sm = 0;                       // resident threads per SM
  std::uint64_t sm_clock_khz = 0;                   // peak SM clock, kHz (0: unknown, see notes)
  std::uint64_t memory_clock_khz = 0;               // peak memory clock, kHz (0: unknown)
  int memory_bus_width_bits = 0;                    // global memory bus width, bits
  bool ecc_enabled = false;                         // ECC on device memory is enabled
  counter_access counters = counter_access::unknown; // performance-counter access
  std::string counter_reason;                       // why `counters` has its value
  std::vector<std::string> notes;                   // values left 0 and why

  /// "sm_90" from sm_major/sm_minor.
  std::string arch() const;

  friend bool operator==(const device_info&, const device_info&) = default;
};

/// The whole host: driver, runtime and every visible device.
struct host_report {
  gpu_status status = gpu_status::error;
  std::string reason;                        // why not ok, with the failing call; when ok, only
                                             // version queries that failed (usually empty)
  int driver_version = 0;                    // CUDA driver API version, e.g. 13000 (0: no driver)
  int runtime_version = 0;                   // CUDA runtime linked into the runner, e.g. 13000
  std::uint32_t cupti_version = 0;           // CUPTI API version (0: unknown)
  int device_count = 0;                      // devices visible to the runner
  std::optional<std::string> visible_devices; // CUDA_VISIBLE_DEVICES as the runner saw it
  bool profiling_admin_only_known = false;   // /proc/driver/nvidia/params was readable
  bool profiling_admin_only = false;         // RmProfilingAdminOnly=1 there
  std::uint32_t effective_uid = 0;           // the runner's effective uid
  std::vector<device_info> devices;          // one per visible device, by ordinal

  friend bool operator==(const host_report&, const host_report&) = default;
};

/// "13.0" from 13000; "none" for 0.
std::string cuda_version_text(int version);

/// Writes the report as one JSON object (the runner protocol's device_query body).
void write_json(json::writer& out, const host_report& report);
std::string to_json(const host_report& report);

/// Reads what write_json wrote; names the first bad field.
expected<host_report, json_error> host_report_from_json(std::string_view text);

/// A human-readable, multi-line rendering for `warpforge-runner --query` and doctor.
std::string to_text(const host_report& report);

/// Why there is no GPU, for people: the first clause of `why_none` (what follows "; " is the failing
/// call's text) without the checked call's source place ("[gpu/runtime/device_query.cpp:147]").
/// Empty `why_none`: "no GPU visible". The full text stays in doctor and in bench's --json.
std::string short_no_gpu_reason(std::string_view why_none);

} // namespace warpforge::gpu
