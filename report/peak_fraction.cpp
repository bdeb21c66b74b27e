#include "report/peak_fraction.hpp"

#include "report/campaign_report.hpp"
#include "foundation/vocabulary/number_text.hpp"

#include <cstdio>

namespace warpforge::report {
namespace {

std::string number(double value, const char* format = "%.3g") {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string rate(double value, bool flops) {
  return flops ? vocabulary::flop_rate_text(value) : vocabulary::bandwidth_text(value);
}

/// The first iteration whose profile counted the FLOP (and DRAM bytes): the job's work.
const iteration_entry* work_iteration(const job_entry& job) {
  for (const auto& it : job.iterations)
    if (it.gaps.flop && it.gaps.dram_bytes && it.gaps.peak_flops && it.gaps.peak_bandwidth)
      return &it;
  return nullptr;
}

/// The latest iteration that recorded DRAM traffic.
const iteration_entry* latest_traffic(const job_entry& job) {
  for (auto it = job.iterations.rbegin(); it != job.iterations.rend(); ++it)
    if (it->gaps.peak_bandwidth && (it->gaps.dram_bytes || it->gaps.achieved_bandwidth))
      return &*it;
  return nullptr;
}

std::optional<peak_fraction> on_compute(const job_entry& job, const iteration_entry& work) {
  const auto& g = work.gaps;
  const double time = job.row.best_time_s.value_or(g.duration.value_or(0));
  if (*g.flop <= 0 || time <= 0 || *g.dram_bytes <= 0 ||
      *g.flop / *g.dram_bytes < *g.peak_flops / *g.peak_bandwidth)
    return std::nullopt; // below the ridge (or no FLOP): the memory axis binds
  peak_fraction f;
  f.axis = "compute";
  f.achieved = *g.flop / time;
  f.peak = *g.peak_flops;
  f.value = f.achieved / f.peak;
  f.peak_name = (g.precision.empty() ? std::string{"fp32"} : g.precision) + " non-tensor";
  f.basis = "the job's " + number(*g.flop) + " FLOP (counted in iteration " +
            std::to_string(work.row.number) + ") over its best time " +
            vocabulary::time_text(time) + "; " + number(*g.flop / *g.dram_bytes) +
            " FLOP per DRAM byte is past the ridge point " +
            number(*g.peak_flops / *g.peak_bandwidth);
  return f;
}

std::optional<peak_fraction> on_memory(const job_entry& job, bool flop_counted) {
  const auto* it = latest_traffic(job);
  if (it == nullptr)
    return std::nullopt;
  const auto& g = it->gaps;
  peak_fraction f;
  f.axis = "memory";
  f.peak = *g.peak_bandwidth;
  const double time = job.row.best_time_s.value_or(g.duration.value_or(0));
  if (g.dram_bytes && time > 0) {
    f.achieved = *g.dram_bytes / time;
    f.basis = number(*g.dram_bytes) + " bytes of DRAM traffic (iteration " +
              std::to_string(it->row.number) + ") over the best time " +
              vocabulary::time_text(time);
  } else {
    f.achieved = *g.achieved_bandwidth;
    f.basis = "the achieved DRAM bandwidth of iteration " + std::to_string(it->row.number);
  }
  f.value = f.achieved / f.peak;
  f.peak_name = flop_counted ? "DRAM"
                             : "DRAM (FLOP not counted: a compute-bound kernel's fraction is "
                               "higher; the binding axis is unknown)";
  return f;
}

} // namespace

std::optional<peak_fraction> peak_fraction_of(const job_entry& job) {
  if (const auto* work = work_iteration(job)) {
    if (auto compute = on_compute(job, *work))
      return compute;
    return on_memory(job, true);
  }
  // Older records without the work: the latest intensity decides, as the roofline does.
  for (auto it = job.iterations.rbegin(); it != job.iterations.rend(); ++it) {
    const auto& g = it->gaps;
    if (!g.arithmetic_intensity || !g.peak_flops || !g.peak_bandwidth || !g.achieved_flops)
      continue;
    if (*g.arithmetic_intensity >= *g.peak_flops / *g.peak_bandwidth)
      return peak_fraction{*g.achieved_flops / *g.peak_flops, "compute", *g.achieved_flops,
                           *g.peak_flops, "non-tensor",
                           "the achieved FLOP/s of iteration " + std::to_string(it->row.number)};
    return on_memory(job, true);
  }
  return on_memory(job, false);
}

std::string describe(const peak_fraction& f) {
  const bool flops = f.axis == "compute";
  return vocabulary::fraction_text(f.value) + " of the " + f.peak_name + " peak (" +
         rate(f.achieved, flops) + " of " + rate(f.peak, flops) + ", " + f.axis + " axis; " +
         f.basis + ")";
}

} // namespace warpforge::report
