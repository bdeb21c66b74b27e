#include "pipeline/physical_limit.hpp"

#include <algorithm>
#include <cstdio>

namespace warpforge::pipeline {
namespace {

using diagnosis::precision;

std::string format(double value, const char* unit) {
  char text[48];
  const char* prefix = "";
  double scaled = value;
  for (auto [factor, name] : std::array<std::pair<double, const char*>, 4>{{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}})
    if (value >= factor) {
      scaled = value / factor;
      prefix = name;
      break;
    }
  std::snprintf(text, sizeof text, "%.3g %s%s", scaled, prefix, unit);
  return text;
}

std::string seconds_text(double s) {
  char text[32];
  if (s >= 1e-3)
    std::snprintf(text, sizeof text, "%.3g ms", s * 1e3);
  else if (s >= 1e-6)
    std::snprintf(text, sizeof text, "%.3g us", s * 1e6);
  else
    std::snprintf(text, sizeof text, "%.3g ns", s * 1e9);
  return text;
}

} // namespace

work_estimate work_of(const config::resolved_problem& problem, vocabulary::timing_mode mode, std::optional<double> flop) {
  work_estimate work;
  for (const auto& arg : problem.args)
    if (const auto* b = std::get_if<config::resolved_buffer>(&arg)) {
      const auto bytes = static_cast<double>(b->bytes);
      if (b->role != config::arg_role::output)
        work.read_bytes += bytes;
      if (b->role != config::arg_role::input)
        work.written_bytes += bytes;
    }
  work.flop = flop;
  work.cold = mode == vocabulary::timing_mode::cold;
  return work;
}

limit_peaks peaks_for(const diagnosis::gpu_profile& gpu, config::dtype problem_type, bool lower_precision_allowed) {
  limit_peaks peaks;
  peaks.dram_bytes_per_s = gpu.peak_dram_bandwidth();
  if (gpu.device.l2_bytes > 0)
    peaks.l2_bytes = static_cast<double>(gpu.device.l2_bytes);
  else if (gpu.spec && gpu.spec->l2_bytes)
    peaks.l2_bytes = *gpu.spec->l2_bytes;
  if (!config::is_floating_point(problem_type))
    return peaks; // integer work has no FLOP peak
  std::vector<precision> allowed;
  if (lower_precision_allowed || problem_type == config::dtype::f16 || problem_type == config::dtype::bf16)
    allowed.assign(diagnosis::all_precisions.begin(), diagnosis::all_precisions.end());
  else if (problem_type == config::dtype::f64)
    allowed = {precision::fp64, precision::fp64_tensor};
  else
    allowed = {precision::fp32};
  for (auto p : allowed)
    if (auto peak = gpu.peak_flops(p); peak && (!peaks.flop_per_s || *peak > *peaks.flop_per_s)) {
      peaks.flop_per_s = peak;
      peaks.precision = std::string{diagnosis::to_string(p)};
    }
  return peaks;
}

physical_limit limit_for(const work_estimate& work, const limit_peaks& peaks) {
  physical_limit limit;
  std::string basis;
  if (peaks.dram_bytes_per_s && *peaks.dram_bytes_per_s > 0) {
    // What the L2 can hold may stay there: between warm launches (inputs), or at the kernel's end
    // (written lines not yet evicted). A flushed L2 still holds nothing to read.
    limit.dram_bytes = work.cold ? work.read_bytes + std::max(0.0, work.written_bytes - peaks.l2_bytes)
                                 : std::max(0.0, work.read_bytes + work.written_bytes - peaks.l2_bytes);
    limit.memory_s = limit.dram_bytes / *peaks.dram_bytes_per_s;
    basis = format(limit.dram_bytes, "B") + " over " + format(*peaks.dram_bytes_per_s, "B/s") + " DRAM = " +
            seconds_text(limit.memory_s);
  }
  if (work.flop && *work.flop > 0 && peaks.flop_per_s && *peaks.flop_per_s > 0) {
    limit.compute_s = *work.flop / *peaks.flop_per_s;
    basis += (basis.empty() ? "" : "; ") + format(*work.flop, "FLOP") + " over " + format(*peaks.flop_per_s, "FLOP/s") +
             " " + peaks.precision + " = " + seconds_text(limit.compute_s);
  }
  limit.basis = basis.empty() ? "no peak or work known" : basis;
  return limit;
}

std::string_view to_string(limit_verdict verdict) {
  switch (verdict) {
  case limit_verdict::plausible: return "plausible";
  case limit_verdict::reverify_cold: return "reverify_cold";
  case limit_verdict::suspicious: return "suspicious";
  }
  return "plausible";
}

limit_verdict judge(double measured_s, const physical_limit& limit, bool fresh) {
  if (!limit.known() || measured_s >= (1.0 - physical_limit_margin) * limit.seconds())
    return limit_verdict::plausible;
  return fresh ? limit_verdict::suspicious : limit_verdict::reverify_cold;
}

std::string limit_detail(double measured_s, double fresh_s, const physical_limit& limit) {
  return "faster than physics allows: measured " + seconds_text(measured_s) + ", re-measured fresh and cold " +
         seconds_text(fresh_s) + ", the least possible time is " + seconds_text(limit.seconds()) + " (" + limit.basis +
         "; margin " + std::to_string(static_cast<int>(physical_limit_margin * 100)) +
         "%): it cannot have done the work; never champion";
}

} // namespace warpforge::pipeline
