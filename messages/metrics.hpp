#pragma once
// The nouns of profiling: which device, and the counter values read from it. Shared by the
// gpu_worker (which produces them) and the diagnoser (which reads them).

#include "messages/ids.hpp"

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace warpforge::messages {

/// What the runner reports about its GPU.
struct device_summary {
  int ordinal = -1;
  std::string name;
  std::string arch;                 // "sm_90"
  std::uint64_t memory_bytes = 0;
  std::uint32_t sm_count = 0;
  std::uint64_t l2_bytes = 0;
  friend bool operator==(const device_summary&, const device_summary&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, device_summary& x) {
  return f(caf::meta::type_name("device_summary"), x.ordinal, x.name, x.arch, x.memory_bytes,
           x.sm_count, x.l2_bytes);
}

struct metric_value {
  std::string key;   // metric-schema key
  double value = 0;  // in the schema's unit
  friend bool operator==(const metric_value&, const metric_value&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, metric_value& x) {
  return f(caf::meta::type_name("metric_value"), x.key, x.value);
}

enum class metric_source : std::uint8_t { cupti, ncu, none };

struct metric_set {
  branch_ref ref;
  device_summary device;
  metric_source source = metric_source::none;
  std::vector<metric_value> values;
  std::string note; // why metrics are missing (counters restricted, ...)
  friend bool operator==(const metric_set&, const metric_set&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, metric_set& x) {
  return f(caf::meta::type_name("metric_set"), x.ref, x.device, x.source, x.values, x.note);
}

} // namespace warpforge::messages
