#include "diagnosis/hierarchical_roofline.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpforge::diagnosis {
namespace {

std::string percent(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", ratio * 100.0);
  return text;
}

/// The metric a level is read from, the busiest of several where a level has more than one.
std::optional<std::pair<std::string, double>> read_level(const metric_values& m, roofline_level level) {
  auto one = [&](std::string_view key) -> std::optional<std::pair<std::string, double>> {
    if (auto v = value_of(m, key))
      return std::pair{std::string{key}, *v};
    return std::nullopt;
  };
  switch (level) {
  case roofline_level::l1: return one("l1_throughput");
  case roofline_level::l2: return one("l2_throughput");
  case roofline_level::dram: return one("dram_throughput");
  case roofline_level::memory:
    // Only where the level cannot be told: with L1 or L2 measured, the levels speak for themselves.
    if (value_of(m, "l1_throughput") || value_of(m, "l2_throughput"))
      return std::nullopt;
    return one("memory_throughput");
  case roofline_level::sm: return one("sm_throughput");
  case roofline_level::fp32: return one("fp32_pipe");
  case roofline_level::fp16: return one("fp16_pipe");
  case roofline_level::fp64: return one("fp64_pipe");
  case roofline_level::tensor: {
    std::optional<std::pair<std::string, double>> best;
    for (const auto* key : {"tensor_hmma_pipe", "tensor_imma_pipe", "tensor_pipe"})
      if (auto v = one(key); v && (!best || v->second > best->second))
        best = v;
    return best;
  }
  }
  return std::nullopt;
}

binding_kind kind_of(roofline_level level) {
  switch (level) {
  case roofline_level::l1: return binding_kind::l1_bound;
  case roofline_level::l2: return binding_kind::l2_bound;
  case roofline_level::dram: return binding_kind::dram_bound;
  case roofline_level::memory: return binding_kind::memory_bound;
  default: return binding_kind::compute_bound;
  }
}

std::string_view kind_title(binding_kind kind) {
  switch (kind) {
  case binding_kind::l1_bound: return "L1-bound";
  case binding_kind::l2_bound: return "L2-bound";
  case binding_kind::dram_bound: return "DRAM-bound";
  case binding_kind::memory_bound: return "Memory-bound (level not measured)";
  case binding_kind::compute_bound: return "Compute-bound";
  case binding_kind::latency_bound: return "Latency-bound";
  case binding_kind::unknown: return "Unknown";
  }
  return "Unknown";
}

/// "L2 21.0%, DRAM 0.6%": every level but `except`, memory ones then compute ones.
std::string others(const hierarchy& h, std::optional<roofline_level> except) {
  std::string memory, compute;
  for (const auto& r : h.levels) {
    if (except && r.level == *except)
      continue;
    auto& out = is_memory_level(r.level) ? memory : compute;
    out += (out.empty() ? "" : ", ") + std::string{label(r.level)} + " " + percent(r.utilisation);
  }
  if (memory.empty())
    return compute.empty() ? "" : "compute: " + compute;
  return compute.empty() ? memory : memory + "; compute: " + compute;
}

bool uncoalesced(const metric_values& m, const hierarchy_policy& policy) {
  auto poor = [&](std::string_view requests, std::string_view efficiency) {
    const auto r = value_of(m, requests);
    const auto e = value_of(m, efficiency);
    return r && *r > 0 && e && *e < policy.uncoalesced_below;
  };
  return poor("global_load_requests", "global_load_efficiency") ||
         poor("global_store_requests", "global_store_efficiency");
}

} // namespace

constexpr vocabulary::enum_word<roofline_level> roofline_level_words[] = {
    {roofline_level::l1, "l1"},
    {roofline_level::l2, "l2"},
    {roofline_level::dram, "dram"},
    {roofline_level::memory, "memory"},
    {roofline_level::sm, "sm"},
    {roofline_level::fp32, "fp32"},
    {roofline_level::fp16, "fp16"},
    {roofline_level::fp64, "fp64"},
    {roofline_level::tensor, "tensor"},
};
static_assert(vocabulary::covers(roofline_level_words, all_roofline_levels));

std::string_view to_string(roofline_level level) { return vocabulary::word_of(roofline_level_words, level); }

std::optional<roofline_level> roofline_level_from_string(std::string_view text) {
  return vocabulary::value_of(roofline_level_words, text);
}

std::string_view label(roofline_level level) {
  switch (level) {
  case roofline_level::l1: return "L1/shared";
  case roofline_level::l2: return "L2";
  case roofline_level::dram: return "DRAM";
  case roofline_level::memory: return "memory (L1, L2 or DRAM: level not measured)";
  case roofline_level::sm: return "SM";
  case roofline_level::fp32: return "FP32 pipe";
  case roofline_level::fp16: return "FP16 pipe";
  case roofline_level::fp64: return "FP64 pipe";
  case roofline_level::tensor: return "tensor pipe";
  }
  return "DRAM";
}

bool is_memory_level(roofline_level level) {
  return level == roofline_level::l1 || level == roofline_level::l2 || level == roofline_level::dram ||
         level == roofline_level::memory;
}

constexpr vocabulary::enum_word<binding_kind> binding_kind_words[] = {
    {binding_kind::l1_bound, "l1_bound"},
    {binding_kind::l2_bound, "l2_bound"},
    {binding_kind::dram_bound, "dram_bound"},
    {binding_kind::memory_bound, "memory_bound"},
    {binding_kind::compute_bound, "compute_bound"},
    {binding_kind::latency_bound, "latency_bound"},
    {binding_kind::unknown, "unknown"},
};
static_assert(vocabulary::covers(binding_kind_words, all_binding_kinds));

std::string_view to_string(binding_kind kind) { return vocabulary::word_of(binding_kind_words, kind); }

std::optional<binding_kind> binding_kind_from_string(std::string_view text) {
  return vocabulary::value_of(binding_kind_words, text);
}

const level_reading* hierarchy::reading(roofline_level level) const {
  for (const auto& r : levels)
    if (r.level == level)
      return &r;
  return nullptr;
}

const level_reading* hierarchy::busiest_memory() const {
  const level_reading* best = nullptr;
  for (const auto& r : levels)
    if (is_memory_level(r.level) && (!best || r.utilisation > best->utilisation))
      best = &r;
  return best;
}

hierarchy locate_in_hierarchy(const metric_values& completed, const hierarchy_policy& policy) {
  hierarchy h;
  // DRAM first, so a tie with a cache names DRAM (the farthest level the bytes came from).
  constexpr std::array order{roofline_level::dram, roofline_level::l2,   roofline_level::l1,
                             roofline_level::memory, roofline_level::sm, roofline_level::fp32,
                             roofline_level::fp16, roofline_level::fp64, roofline_level::tensor};
  for (auto level : all_roofline_levels)
    if (auto read = read_level(completed, level)) {
      const double u = std::clamp(read->second, 0.0, 1.0);
      h.levels.push_back({level, read->first, u, 1.0 - u});
    }
  const level_reading* busiest = nullptr;
  for (auto level : order)
    if (const auto* r = h.reading(level); r && (!busiest || r->utilisation > busiest->utilisation))
      busiest = r;
  h.uncoalesced = uncoalesced(completed, policy);
  if (!busiest) {
    h.headline = "Unknown: no throughput of L1, L2, DRAM or an SM pipe was measured";
    return h;
  }
  h.busiest = busiest->level;
  if (busiest->utilisation >= policy.bound_threshold) {
    h.binding = busiest->level;
    h.kind = kind_of(busiest->level);
    h.headline = std::string{kind_title(h.kind)} + ": " + std::string{label(busiest->level)} + " at " +
                 percent(busiest->utilisation) + " of its peak";
  } else {
    h.kind = binding_kind::latency_bound;
    h.headline = std::string{kind_title(h.kind)} + ": no level reaches " + percent(policy.bound_threshold) +
                 " of its peak (busiest: " + std::string{label(busiest->level)} + " " +
                 percent(busiest->utilisation) + ")";
  }
  if (auto rest = others(h, h.busiest); !rest.empty())
    h.headline += " (" + rest + ")";
  return h;
}

} // namespace warpforge::diagnosis
