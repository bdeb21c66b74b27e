#include "gpu/runtime/sass_aggregates.hpp"

#include <algorithm>
#include <array>

namespace warpforge::gpu {

namespace {

/// Bytes in one L1/L2 sector: ncu's bytes-per-sector percentages are of this.
constexpr double sector_bytes = 32.0;

enum class formula { sum, bytes_per_sector_pct, uniform_branch_pct };

struct aggregate {
  const char* nsight;
  formula kind;
  std::array<const char*, 2> counters; // sum: {counter, ""}; ratios: {numerator, denominator}
                                       // (uniform_branch_pct: {uniform, divergent})
};

constexpr std::array aggregates{
  aggregate{"smsp__sass_inst_executed_op_local_ld.sum", formula::sum, {"smsp__sass_inst_executed_op_local_ld", ""}},
  aggregate{"smsp__sass_inst_executed_op_local_st.sum", formula::sum, {"smsp__sass_inst_executed_op_local_st", ""}},
  aggregate{"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", formula::bytes_per_sector_pct,
            {"smsp__sass_data_bytes_mem_global_op_ld", "smsp__sass_sectors_mem_global_op_ld"}},
  aggregate{"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", formula::bytes_per_sector_pct,
            {"smsp__sass_data_bytes_mem_global_op_st", "smsp__sass_sectors_mem_global_op_st"}},
  aggregate{"smsp__sass_average_branch_targets_threads_uniform.pct", formula::uniform_branch_pct,
            {"smsp__sass_branch_targets_threads_uniform", "smsp__sass_branch_targets_threads_divergent"}},
};

const aggregate* find(const std::string& nsight) {
  for (const auto& a : aggregates)
    if (nsight == a.nsight)
      return &a;
  return nullptr;
}

std::vector<std::string> counters_of(const aggregate& a) {
  std::vector<std::string> out;
  for (const char* c : a.counters)
    if (*c != '\0')
      out.emplace_back(c);
  return out;
}

} // namespace

bool is_sass_aggregate(const std::string& nsight) { return find(nsight) != nullptr; }

std::vector<std::string> sass_counters_for(const std::vector<std::string>& nsight) {
  std::vector<std::string> out;
  for (const auto& name : nsight)
    if (const auto* a = find(name))
      for (auto& counter : counters_of(*a))
        if (std::find(out.begin(), out.end(), counter) == out.end())
          out.push_back(std::move(counter));
  return out;
}

sass_evaluation evaluate_sass_aggregates(const std::vector<std::string>& nsight,
                                         const std::map<std::string, double>& totals,
                                         const std::set<std::string>& chip_counters) {
  sass_evaluation out;
  for (const auto& name : nsight) {
    const auto* a = find(name);
    if (a == nullptr)
      continue;
    std::string absent;
    for (const auto& counter : counters_of(*a))
      if (chip_counters.count(counter) == 0 || totals.count(counter) == 0)
        absent += (absent.empty() ? "" : ", ") + counter;
    if (!absent.empty()) {
      out.missing[name] = "CUPTI's SASS metrics of this chip have no " + absent;
      continue;
    }
    const double first = totals.at(a->counters[0]);
    switch (a->kind) {
      case formula::sum: out.values[name] = first; break;
      case formula::bytes_per_sector_pct: {
        const double sectors = totals.at(a->counters[1]);
        if (sectors == 0)
          out.missing[name] = std::string{"no value: "} + a->counters[1] + " is 0 (the kernel moved no such sector)";
        else
          out.values[name] = 100.0 * first / (sector_bytes * sectors);
        break;
      }
      case formula::uniform_branch_pct: {
        const double targets = first + totals.at(a->counters[1]);
        if (targets == 0)
          out.missing[name] = "no value: the kernel executed no branch (no branch target)";
        else
          out.values[name] = 100.0 * first / targets;
        break;
      }
    }
  }
  return out;
}

} // namespace warpforge::gpu
