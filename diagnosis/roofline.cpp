#include "diagnosis/roofline.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <cmath>

namespace warpforge::diagnosis {

namespace {

std::size_t index(roofline_axis axis) { return static_cast<std::size_t>(axis); }

// Tie order when adding (and, reversed, when removing): memory > latency > compute (roofline.py).
constexpr std::array<roofline_axis, 3> add_priority{roofline_axis::memory, roofline_axis::latency,
                                                   roofline_axis::compute};

} // namespace

constexpr vocabulary::enum_word<roofline_axis> roofline_axis_words[] = {
    {roofline_axis::compute, "compute"},
    {roofline_axis::memory, "memory"},
    {roofline_axis::latency, "latency"},
};
static_assert(vocabulary::covers(roofline_axis_words, all_roofline_axes));

std::string_view to_string(roofline_axis axis) { return vocabulary::word_of(roofline_axis_words, axis); }

std::optional<roofline_axis> roofline_axis_from_string(std::string_view text) {
  return vocabulary::value_of(roofline_axis_words, text);
}

constexpr vocabulary::enum_word<widest_gap> widest_gap_words[] = {
    {widest_gap::near_peak, "near_peak"},
    {widest_gap::compute, "compute"},
    {widest_gap::memory, "memory"},
    {widest_gap::latency, "latency"},
};
static_assert(vocabulary::covers(widest_gap_words, all_widest_gaps));

std::string_view to_string(widest_gap gap) { return vocabulary::word_of(widest_gap_words, gap); }

std::optional<widest_gap> widest_gap_from_string(std::string_view text) {
  return vocabulary::value_of(widest_gap_words, text);
}

double roofline_gaps::gap(roofline_axis axis) const {
  switch (axis) {
  case roofline_axis::compute: return compute;
  case roofline_axis::memory: return memory;
  case roofline_axis::latency: return latency;
  }
  return compute;
}

std::uint32_t method_budget::of(roofline_axis axis) const {
  switch (axis) {
  case roofline_axis::compute: return compute;
  case roofline_axis::memory: return memory;
  case roofline_axis::latency: return latency;
  }
  return compute;
}

roofline_gaps compute_gaps(const metric_values& metrics, const roofline_policy& policy) {
  roofline_gaps gaps;

  // Δc = max(0, 1 − max(tensor%, fp32%, sm_throughput%)/100); missing counts as 0.
  const auto hmma = value_of(metrics, "tensor_hmma_pipe");
  const auto imma = value_of(metrics, "tensor_imma_pipe");
  const auto fp32 = value_of(metrics, "fp32_pipe");
  const auto sm = value_of(metrics, "sm_throughput");
  const double tensor = hmma ? *hmma : imma.value_or(0.0); // the first match, as the seed
  gaps.compute_utilisation = std::max({tensor, fp32.value_or(0.0), sm.value_or(0.0)});
  gaps.compute = std::max(0.0, 1.0 - gaps.compute_utilisation);

  // Δm = max(0, 1 − X), X = the busiest measured memory level (L1/shared, L2, DRAM), else
  // gpu__compute_memory_throughput. The seed reads DRAM first, which puts a kernel that saturates
  // L1 (a naive SGEMM: L1 99%, DRAM 0.6%) as far from the memory roof as a kernel can be (issue 26).
  const auto memory = value_of(metrics, "memory_throughput");
  bool level_measured = false;
  for (const auto* key : {"dram_throughput", "l2_throughput", "l1_throughput"})
    if (const auto level = value_of(metrics, key);
        level && (!level_measured || *level > gaps.memory_utilisation)) {
      gaps.memory_utilisation = *level;
      gaps.memory_key = key;
      level_measured = true;
    }
  if (!level_measured && memory) {
    gaps.memory_utilisation = *memory;
    gaps.memory_key = "memory_throughput";
  }
  gaps.memory = std::max(0.0, 1.0 - gaps.memory_utilisation);

  // Δl = max over latency stalls, each clamped to [0, 1]; default when there are none.
  for (const auto key : latency_gap_keys) {
    if (const auto stall = value_of(metrics, key)) {
      const double clamped = std::clamp(*stall, 0.0, 1.0);
      if (!gaps.max_stall || clamped > *gaps.max_stall) {
        gaps.max_stall = clamped;
        gaps.max_stall_key = std::string{key};
      }
    }
  }
  gaps.latency = gaps.max_stall ? *gaps.max_stall : policy.latency_default_gap;

  // Degraded: no roofline input at all (the profiler gave nothing): every gap is 0.5.
  if (!hmma && !imma && !fp32 && !sm && !level_measured && !memory && !gaps.max_stall) {
    gaps.degraded = true;
    gaps.compute = gaps.memory = gaps.latency = policy.degraded_gap;
  }
  return gaps;
}

bool is_near_peak(const roofline_gaps& gaps, const roofline_policy& policy) {
  return gaps.compute < policy.near_peak_gap && gaps.memory < policy.near_peak_gap &&
         gaps.latency < policy.near_peak_gap;
}

widest_gap widest_gap_of(const roofline_gaps& gaps, const roofline_policy& policy) {
  if (is_near_peak(gaps, policy))
    return widest_gap::near_peak;
  if (gaps.compute >= gaps.memory && gaps.compute >= gaps.latency)
    return widest_gap::compute;
  if (gaps.memory >= gaps.latency)
    return widest_gap::memory;
  return widest_gap::latency;
}

method_budget allocate_budget(const roofline_gaps& gaps, const roofline_policy& policy) {
  const std::uint32_t total = policy.budget_total;
  const std::uint32_t cap = policy.budget_axis_cap;
  std::array<double, 3> gap{};       // by axis index
  std::array<double, 3> raw{};       // total · gap / Σgap
  std::array<std::uint32_t, 3> alloc{};
  auto result = [&] { return method_budget{alloc[0], alloc[1], alloc[2]}; };

  // 1. Gaps below budget_zero_below count as 0.
  double sum = 0.0;
  for (auto axis : all_roofline_axes) {
    const double g = gaps.gap(axis);
    gap[index(axis)] = g < policy.budget_zero_below ? 0.0 : g;
    sum += gap[index(axis)];
  }

  // 2. Nothing left to split: an even split (roofline.py: {1, 1, 1}).
  if (sum < policy.budget_uniform_below) {
    for (auto& a : alloc)
      a = std::min(cap, total / 3);
    std::uint32_t rest = total - (alloc[0] + alloc[1] + alloc[2]);
    for (auto axis : add_priority)
      if (rest > 0 && alloc[index(axis)] < cap) {
        ++alloc[index(axis)];
        --rest;
      }
    return result();
  }

  // 3. Proportional, rounded half to even (std::nearbyint in the default rounding mode).
  for (std::size_t i = 0; i < 3; ++i) {
    raw[i] = static_cast<double>(total) * gap[i] / sum;
    alloc[i] = static_cast<std::uint32_t>(std::nearbyint(raw[i]));
  }

  // 4. Cap; the overflow goes to axes below the cap by descending gap (ties: add_priority).
  std::uint32_t overflow = 0;
  for (auto& a : alloc)
    if (a > cap) {
      overflow += a - cap;
      a = cap;
    }
  std::array<roofline_axis, 3> by_gap = add_priority;
  std::stable_sort(by_gap.begin(), by_gap.end(), [&](roofline_axis a, roofline_axis b) {
    return gaps.gap(a) > gaps.gap(b);
  });
  for (bool moved = true; overflow > 0 && moved;) {
    moved = false;
    for (auto axis : by_gap)
      if (overflow > 0 && alloc[index(axis)] < cap) {
        ++alloc[index(axis)];
        --overflow;
        moved = true;
      }
  }

  // 5. Force the sum to exactly `total` by fractional remainders.
  auto remainder = [&](roofline_axis axis) {
    return raw[index(axis)] - std::floor(raw[index(axis)]);
  };
  auto sum_alloc = [&] { return alloc[0] + alloc[1] + alloc[2]; };
  while (sum_alloc() < total) {
    std::optional<roofline_axis> best;
    for (auto axis : add_priority) // ties keep the earlier (preferred) axis
      if (alloc[index(axis)] < cap && (!best || remainder(axis) > remainder(*best)))
        best = axis;
    if (!best)
      break; // every axis at the cap: total > 3 · cap
    ++alloc[index(*best)];
  }
  while (sum_alloc() > total) {
    std::optional<roofline_axis> best;
    for (auto it = add_priority.rbegin(); it != add_priority.rend(); ++it) // compute first on ties
      if (alloc[index(*it)] > 0 && (!best || remainder(*it) < remainder(*best)))
        best = *it;
    --alloc[index(*best)];
  }
  return result();
}

roofline_point locate_on_roofline(const metric_values& completed, const gpu_profile& gpu) {
  roofline_point point;
  point.arithmetic_intensity = value_of(completed, "arithmetic_intensity");
  point.achieved_flops = value_of(completed, "achieved_flops");
  point.achieved_bandwidth = value_of(completed, "achieved_dram_bandwidth");

  struct candidate {
    std::string_view key;
    precision p;
  };
  constexpr candidate precisions[] = {{"flop_fp32", precision::fp32},
                                      {"flop_fp16", precision::fp16},
                                      {"flop_fp64", precision::fp64}};
  double most = 0.0;
  for (const auto& c : precisions)
    if (const auto flop = value_of(completed, c.key); flop && *flop > most) {
      most = *flop;
      point.dominant_precision = c.p;
    }
  if (point.dominant_precision)
    point.peak_flops = gpu.peak_flops(*point.dominant_precision);
  point.peak_bandwidth = gpu.peak_dram_bandwidth();

  if (point.peak_flops && point.peak_bandwidth && *point.peak_bandwidth > 0.0)
    point.ridge_point = *point.peak_flops / *point.peak_bandwidth;
  if (point.peak_flops && point.arithmetic_intensity && point.peak_bandwidth)
    point.attainable_flops =
      std::min(*point.peak_flops, *point.arithmetic_intensity * *point.peak_bandwidth);
  if (point.achieved_flops && point.peak_flops && *point.peak_flops > 0.0)
    point.compute_fraction = *point.achieved_flops / *point.peak_flops;
  if (point.achieved_bandwidth && point.peak_bandwidth && *point.peak_bandwidth > 0.0)
    point.bandwidth_fraction = *point.achieved_bandwidth / *point.peak_bandwidth;
  if (point.achieved_flops && point.attainable_flops && *point.attainable_flops > 0.0)
    point.attainable_fraction = *point.achieved_flops / *point.attainable_flops;
  // The binding axis: intensity against the ridge; a kernel with no FLOP at all is memory's.
  const bool no_flop = point.arithmetic_intensity && *point.arithmetic_intensity == 0.0;
  if (point.arithmetic_intensity && (point.ridge_point || no_flop)) {
    const bool compute = !no_flop && *point.arithmetic_intensity >= *point.ridge_point;
    point.binding_axis = compute ? roofline_axis::compute : roofline_axis::memory;
    point.peak_fraction = compute ? point.compute_fraction : point.bandwidth_fraction;
  }
  return point;
}

} // namespace warpforge::diagnosis
