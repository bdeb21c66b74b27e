#pragma once
// profiler: the profiler/diagnoser. For a profile_order it asks the order's GPU worker for the
// counters of one launch (the worker runs gpu/profiling's policy: CUPTI in its runner, ncu for
// the rest), keeps the metric set in the branch's folder, and answers its diagnosis summary
// (pipeline/diagnose_metrics.hpp). No counters is an answer (diagnosed = false, and why).

#include "messages/profiler.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <cstdint>

namespace warpforge::actors {

inline constexpr std::string_view profiler_name = "profiler";

struct profiler_state {
  static inline const char* name = "profiler";

  std::int64_t profiles = 0;   // orders answered
  std::int64_t diagnosed = 0;  // ... with counters to diagnose

  /// The summary of `metrics` for `order`, the metric set written next to its branch.
  pipeline::diagnosis_summary finish(const messages::profile_order& order, const gpu::metric_set& metrics);
  messages::component_status status() const;
};

messages::profiler_actor::behavior_type
profiler(messages::profiler_actor::stateful_pointer<profiler_state> self);

} // namespace warpforge::actors
