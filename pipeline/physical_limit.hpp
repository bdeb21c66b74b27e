#pragma once
// The physical-limit gate: before a kernel can be crowned, its time is compared with the least
// time physics allows for the problem on this GPU. A kernel faster than that did not do the work
// (it skipped it, kept results from an earlier launch, or timed something else): it is re-measured
// cold and fresh (race_request::fresh: new module, new buffers, L2 flushed) and, still too fast,
// recorded `suspicious` with both numbers, never champion (docs/measurement.md).
//
//   auto limit = limit_for(work_of(resolved, mode), peaks_for(gpu, dtype, allowed));
//   switch (judge(median_s, limit, already_fresh)) { ... }
//
// The least time is the larger of two floors:
//   memory   the bytes that must cross the DRAM interface at least once over the GPU's DRAM peak.
//            Inputs are read once and outputs written once (inout both); what the L2 can hold is
//            subtracted, since data can legitimately stay there between launches (warm) and
//            written lines can still sit in it when the kernel ends (any mode). Cold and fresh
//            (L2 flushed first): read bytes + max(0, written bytes - L2). Warm: max(0, read +
//            written - L2). A working set that fits in L2 has no memory floor.
//   compute  the problem's FLOP (when the spec declares them) over the fastest peak the kernel may
//            use: f32 problems fp32 (FMA pipe), f64 problems fp64 or DMMA; where lower precision
//            is allowed (or the problem is narrower), the fastest peak of any precision.
// Every figure is a theoretical peak, so no honest kernel reaches it; the margin below absorbs the
// table's rounding and the timer's resolution.

#include "config/dtype.hpp"
#include "config/resolved_problem.hpp"
#include "diagnosis/gpu_specs.hpp"
#include "foundation/vocabulary/timing_mode.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::pipeline {

/// A kernel is impossible when its time is below (1 - margin) x the limit: 0.10 = 10% faster
/// than the peaks allow.
inline constexpr double physical_limit_margin = 0.10;

/// What a problem must do at one configuration.
struct work_estimate {
  double read_bytes = 0;         // input and inout buffers, bytes
  double written_bytes = 0;      // output and inout buffers, bytes
  std::optional<double> flop;    // floating-point operations, when the problem declares them
  bool cold = false;             // L2 flushed before each launch (timing cold, or a fresh request)
};

/// The peaks a limit is computed from; none where the GPU's table or report does not say.
struct limit_peaks {
  std::optional<double> dram_bytes_per_s; // bytes/s
  double l2_bytes = 0;                    // bytes (0: unknown, nothing subtracted)
  std::optional<double> flop_per_s;       // FLOP/s of the fastest precision the kernel may use
  std::string precision;                  // which peak that is ("fp32"), for the detail
};

/// The least time, seconds, and how it was reached.
struct physical_limit {
  double memory_s = 0;   // DRAM floor; 0 when the working set fits in L2 or no bandwidth is known
  double compute_s = 0;  // compute floor; 0 without a FLOP count or a peak
  double dram_bytes = 0; // the bytes the memory floor counts
  std::string basis;     // "46.2 MB over 3350 GB/s DRAM = 13.8 us; ..." for people
  double seconds() const { return memory_s > compute_s ? memory_s : compute_s; }
  bool known() const { return seconds() > 0; }
};

/// The read and written bytes of `problem`'s buffers (each moved once).
work_estimate work_of(const config::resolved_problem& problem, vocabulary::timing_mode mode,
                      std::optional<double> flop = std::nullopt);

/// The peaks of `gpu` for a problem whose outputs are `problem_type`.
limit_peaks peaks_for(const diagnosis::gpu_profile& gpu, config::dtype problem_type, bool lower_precision_allowed);

physical_limit limit_for(const work_estimate& work, const limit_peaks& peaks);

/// What the gate makes of a measured time.
enum class limit_verdict : std::uint8_t {
  plausible,     // at or above the limit (less the margin), or no limit is known
  reverify_cold, // below it in an ordinary race: measure again, fresh and cold
  suspicious,    // below it, measured fresh and cold: never champion
};
inline constexpr std::array all_limit_verdicts{limit_verdict::plausible, limit_verdict::reverify_cold,
                                               limit_verdict::suspicious};
std::string_view to_string(limit_verdict verdict);

/// `measured_s` against `limit`; `fresh`: the time already comes from a fresh, cold re-measure.
limit_verdict judge(double measured_s, const physical_limit& limit, bool fresh);

/// "measured 1.20 us, below the physical limit 13.8 us (46.2 MB over ...): ..." — both numbers.
std::string limit_detail(double measured_s, double fresh_s, const physical_limit& limit);

} // namespace warpforge::pipeline
