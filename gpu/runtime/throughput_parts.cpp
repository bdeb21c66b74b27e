#include "gpu/runtime/throughput_parts.hpp"

#include <algorithm>

namespace warpforge::gpu {

namespace {

constexpr std::string_view elapsed = ".avg.pct_of_peak_sustained_elapsed";

std::vector<std::string> with_suffix(std::initializer_list<std::string_view> bases, std::string_view suffix) {
  std::vector<std::string> out;
  for (auto base : bases)
    out.push_back(std::string{base} + std::string{suffix});
  return out;
}

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

const throughput_parts* parts_of(std::string_view name) {
  for (const auto& t : composed_throughputs())
    if (t.composite == name)
      return &t;
  return nullptr;
}

} // namespace

// A table, though it holds one composite: the others were read from parts too at first (the
// header says why no longer), and a chip whose breakdowns are read may want them again.
const std::vector<throughput_parts>& composed_throughputs() {
  static const std::vector<throughput_parts> table = [] {
    std::vector<throughput_parts> t;
    t.push_back({"sm__throughput.avg.pct_of_peak_sustained_elapsed",
                 with_suffix({"sm__inst_executed", "sm__pipe_fma_cycles_active", "sm__pipe_alu_cycles_active",
                              "sm__pipe_fp64_cycles_active", "sm__pipe_shared_cycles_active",
                              "sm__pipe_tensor_cycles_active", "sm__inst_executed_pipe_xu",
                              "sm__inst_executed_pipe_lsu", "sm__inst_executed_pipe_adu",
                              "sm__mio_pq_read_cycles_active", "sm__mio2rf_writeback_active"},
                             elapsed)});
    return t;
  }();
  return table;
}

counter_plan plan_counters(const std::vector<std::string>& requested, std::string_view chip) {
  counter_plan plan;
  plan.requested = requested;
  const bool checked = std::find(std::begin(chips_with_checked_parts), std::end(chips_with_checked_parts), chip) !=
                       std::end(chips_with_checked_parts);
  auto add = [&](std::string_view name) {
    if (!contains(plan.counters, name))
      plan.counters.emplace_back(name);
  };
  for (const auto& name : requested) {
    if (const auto* t = checked ? parts_of(name) : nullptr) {
      if (!contains(plan.composed, name))
        plan.composed.push_back(name);
      for (const auto& part : t->parts)
        add(part);
    } else {
      add(name);
    }
  }
  return plan;
}

void compose_throughputs(const counter_plan& plan, std::map<std::string, double>& values,
                         std::map<std::string, std::string>& missing) {
  for (const auto& composite : plan.composed) {
    const auto& parts = parts_of(composite)->parts;
    double busiest = 0.0;
    std::string lacking, first_reason;
    for (const auto& part : parts) {
      auto found = values.find(part);
      if (found != values.end()) {
        busiest = std::max(busiest, found->second);
        continue;
      }
      if (auto why = missing.find(part); why != missing.end() && first_reason.empty())
        first_reason = " (" + part + ": " + why->second + ")";
      lacking += (lacking.empty() ? "" : ", ") + part;
    }
    const bool none = !lacking.empty() && std::none_of(parts.begin(), parts.end(), [&](const std::string& part) {
                        return values.contains(part);
                      });
    if (lacking.empty())
      values[composite] = busiest;
    else // a reason given already (the range profiler failed) stays
      missing.emplace(composite, none ? "read from its parts, none of which has a value" + first_reason
                                      : "read from its parts, and these have no value: " + lacking + first_reason);
  }
  for (const auto& t : composed_throughputs())
    for (const auto& part : t.parts)
      if (!contains(plan.requested, part)) {
        values.erase(part);
        missing.erase(part);
      }
}

std::string composed_remark(const counter_plan& plan) {
  if (plan.composed.empty())
    return "";
  std::string names;
  std::size_t parts = 0;
  for (const auto& composite : plan.composed) {
    names += (names.empty() ? "" : ", ") + composite.substr(0, composite.find('.'));
    parts += parts_of(composite)->parts.size();
  }
  return names + " read as the busiest of " + std::to_string(parts) +
         " parts (gpu/runtime/throughput_parts.hpp: a unit left out reads low)";
}

} // namespace warpforge::gpu
