#pragma once
// A campaign's throughput as `warpforge report` reads it back from the store's events
// (docs/report.md, "Throughput"): candidates measured per GPU-hour, and per GPU its kernel time
// (busy), its profiles, the races' set-up, and the rest idle, each over the campaign's wall time.
// The figures come from what the engine wrote on every `gpu_released` (lease_s, kernel_s,
// measured); a run recorded before those fields says so instead of a number.
//
//   auto t = throughput_from_events(events);   // t.per_gpu_hour(), t.gpus[0].busy_fraction(t.wall_s)

#include "storage/rows.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace warpforge::report {

struct gpu_throughput {
  int gpu = -1;
  std::uint64_t races = 0;
  std::uint64_t profiles = 0;
  std::uint64_t measured = 0; // candidates measured here
  double kernel_s = 0;        // seconds of kernel execution (busy)
  double race_lease_s = 0;    // seconds its worker spent on races (kernel_s included)
  double profile_s = 0;       // seconds its worker spent on profiles
  bool recorded = true;       // false: a lease of it carried no lease_s (a run from before them)
};

struct campaign_throughput {
  double wall_s = 0;                 // seconds the campaign ran (each run of it: started to ended)
  std::size_t gpu_count = 0;         // GPUs the campaign ran on (campaign_started's gpus)
  std::uint64_t measured = 0;        // candidates measured, all GPUs
  std::vector<gpu_throughput> gpus;  // those that took work, by ordinal
  std::string not_measured_reason;   // set when the figures cannot be given, and why

  /// Candidates measured per GPU-hour; none when not measured or no time passed.
  std::optional<double> per_gpu_hour() const;
};

/// From a campaign's events in seq order (the whole list, or any prefix of a live run).
campaign_throughput throughput_from_events(std::span<const storage::event_row> events);

} // namespace warpforge::report
