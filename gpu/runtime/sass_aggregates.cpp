#include "gpu/runtime/sass_aggregates.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

namespace warpforge::gpu {

namespace {

/// Bytes in one L1/L2 sector: ncu's bytes-per-sector percentages are of this.
constexpr double sector_bytes = 32.0;

constexpr const char* local_ld = "smsp__sass_inst_executed_op_local_ld";
constexpr const char* local_st = "smsp__sass_inst_executed_op_local_st";
constexpr const char* uniform = "smsp__sass_branch_targets_threads_uniform";
constexpr const char* divergent = "smsp__sass_branch_targets_threads_divergent";
constexpr const char* global_ld = "smsp__sass_inst_executed_op_global_ld";
constexpr const char* global_st = "smsp__sass_inst_executed_op_global_st";
constexpr const char* threads_on = "smsp__sass_thread_inst_executed_op_global_pred_on";
constexpr const char* sectors = "smsp__sass_sectors_mem_global";

/// The access-size counters and the bytes per thread each stands for.
struct access_size {
  const char* counter;
  double bytes;
};
constexpr std::array access_sizes{
  access_size{"smsp__sass_inst_executed_op_memory_8b", 1},  access_size{"smsp__sass_inst_executed_op_memory_16b", 2},
  access_size{"smsp__sass_inst_executed_op_memory_32b", 4}, access_size{"smsp__sass_inst_executed_op_memory_64b", 8},
  access_size{"smsp__sass_inst_executed_op_memory_128b", 16},
};

enum class formula { sum, bytes_per_sector_pct, uniform_branch_pct };

struct aggregate {
  const char* nsight;
  formula kind;
  const char* selector; // sum: the counter; bytes_per_sector_pct: the instructions' kind; else unused
};

constexpr std::array aggregates{
  aggregate{"smsp__sass_inst_executed_op_local_ld.sum", formula::sum, local_ld},
  aggregate{"smsp__sass_inst_executed_op_local_st.sum", formula::sum, local_st},
  aggregate{"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", formula::bytes_per_sector_pct, global_ld},
  aggregate{"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", formula::bytes_per_sector_pct, global_st},
  aggregate{"smsp__sass_average_branch_targets_threads_uniform.pct", formula::uniform_branch_pct, nullptr},
};

const aggregate* find(const std::string& nsight) {
  for (const auto& a : aggregates)
    if (nsight == a.nsight)
      return &a;
  return nullptr;
}

std::vector<std::string> counters_of(const aggregate& a) {
  switch (a.kind) {
    case formula::sum: return {a.selector};
    case formula::uniform_branch_pct: return {uniform, divergent};
    case formula::bytes_per_sector_pct: {
      std::vector<std::string> out{a.selector, threads_on, sectors};
      for (const auto& size : access_sizes)
        out.emplace_back(size.counter);
      return out;
    }
  }
  return {};
}

double count(const sass_instruction& i, const char* counter) {
  auto c = i.counters.find(counter);
  return c == i.counters.end() ? 0.0 : c->second;
}

double total(const std::vector<sass_instruction>& instructions, const char* counter) {
  double sum = 0;
  for (const auto& i : instructions)
    sum += count(i, counter);
  return sum;
}

std::string hex(std::uint32_t pc) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%x", pc);
  return text;
}

// 100 * data bytes / (32 * sectors) over the instructions of kind `selector`; the error says why not.
struct ratio {
  double value = 0;
  std::string why_not;
};
ratio bytes_per_sector(const std::vector<sass_instruction>& instructions, const char* selector) {
  double bytes = 0;
  double moved = 0;
  for (const auto& i : instructions) {
    if (count(i, selector) <= 0)
      continue;
    double executions = 0;
    double weighted = 0;
    for (const auto& size : access_sizes) {
      executions += count(i, size.counter);
      weighted += size.bytes * count(i, size.counter);
    }
    if (executions <= 0)
      return {0, std::string{"no value: no op_memory counter gives the access size of the instruction at "} +
                   hex(i.pc_offset)};
    const double requested = count(i, threads_on) * (weighted / executions);
    // More bytes asked for than the sectors moved can hold: threads of a warp asked for the same
    // bytes. ncu counts such a byte once; CUPTI counts no unique bytes, so the value is not ncu's.
    if (requested > sector_bytes * count(i, sectors))
      return {0, "no value: threads of a warp asked for the same bytes (the instruction at " + hex(i.pc_offset) +
                   " asked for " + std::to_string(static_cast<long long>(requested)) + " bytes in " +
                   std::to_string(static_cast<long long>(count(i, sectors))) +
                   " sectors); ncu counts such bytes once, CUPTI's SASS counters have no count of unique bytes"};
    bytes += requested;
    moved += count(i, sectors);
  }
  if (moved == 0)
    return {0, std::string{"no value: no sector moved by a "} + selector + " instruction (none ran)"};
  return {100.0 * bytes / (sector_bytes * moved), ""};
}

} // namespace

bool is_sass_aggregate(const std::string& nsight) { return find(nsight) != nullptr; }

std::vector<std::string> sass_counters_for(const std::vector<std::string>& nsight) {
  std::vector<std::string> out;
  auto add = [&](const aggregate& a) {
    for (auto& counter : counters_of(a))
      if (std::find(out.begin(), out.end(), counter) == out.end())
        out.push_back(std::move(counter));
  };
  if (nsight.empty())
    for (const auto& a : aggregates)
      add(a);
  for (const auto& name : nsight)
    if (const auto* a = find(name))
      add(*a);
  return out;
}

sass_evaluation evaluate_sass_aggregates(const std::vector<std::string>& nsight,
                                         const std::vector<sass_instruction>& instructions,
                                         const std::set<std::string>& collected) {
  sass_evaluation out;
  for (const auto& name : nsight) {
    const auto* a = find(name);
    if (a == nullptr)
      continue;
    std::string absent;
    for (const auto& counter : counters_of(*a))
      if (collected.count(counter) == 0)
        absent += (absent.empty() ? "" : ", ") + counter;
    if (!absent.empty()) {
      out.missing[name] = "CUPTI's SASS metrics of this chip have no " + absent;
      continue;
    }
    // Nothing patched reported: a sum would read 0 ("no spills") where nothing was measured.
    if (instructions.empty()) {
      out.missing[name] = "not measured: CUPTI reported no patched instruction of the launch";
      continue;
    }
    switch (a->kind) {
      case formula::sum: out.values[name] = total(instructions, a->selector); break;
      case formula::uniform_branch_pct: {
        const double u = total(instructions, uniform);
        const double targets = u + total(instructions, divergent);
        if (targets == 0)
          out.missing[name] = "no value: the kernel executed no branch (no branch target)";
        else
          out.values[name] = 100.0 * u / targets;
        break;
      }
      case formula::bytes_per_sector_pct: {
        auto r = bytes_per_sector(instructions, a->selector);
        if (r.why_not.empty())
          out.values[name] = r.value;
        else
          out.missing[name] = r.why_not;
        break;
      }
    }
  }
  return out;
}

} // namespace warpforge::gpu
