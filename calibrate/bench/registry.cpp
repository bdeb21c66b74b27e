#include "calibrate/bench/registry.hpp"

#include "calibrate/bench/kernel_list.hpp"

#include <algorithm>
#include <deque>
#include <set>
#include <sstream>

namespace warpforge::embedded {
#define WF_DECLARE(stem) extern const std::string_view calibrate_bench_##stem;
WF_BENCH_PROGRAMS(WF_DECLARE)
WF_BENCH_HEADERS(WF_DECLARE)
#undef WF_DECLARE
} // namespace warpforge::embedded

namespace warpforge::calibrate {
namespace {

// What each program needs besides its source: the arch, the SASS it must contain and the
// counters that corroborate it. SASS specs were read from real dumps of these programs
// (tests/calibrate/bench/fixtures/).
struct benchmark_facts {
  std::string_view parameter;
  std::string_view arch;
  std::vector<std::string> required_sass;
  std::vector<std::string> counters;
};

const std::vector<benchmark_facts>& facts() {
  const std::string ffma = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum";
  const std::string dfma = "sm__sass_thread_inst_executed_op_dfma_pred_on.sum";
  const std::string hfma = "sm__sass_thread_inst_executed_op_hfma_pred_on.sum";
  const std::string inst = "sm__inst_executed.sum";
  const std::string hmma = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";
  const std::string tensor = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";
  const std::string conflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
  const std::string l1_hits = "l1tex__t_sector_hit_rate.pct";
  const std::string l2_hits = "lts__t_sector_hit_rate.pct";
  const std::string dram_read = "dram__bytes_read.sum";
  static const std::vector<benchmark_facts> table{
      {"fp32_fma_latency", "sm_90", {"FFMA"}, {ffma}},
      {"fp32_fma_throughput", "sm_90", {"FFMA"}, {ffma}},
      {"fp64_fma_latency", "sm_90", {"DFMA"}, {dfma}},
      {"fp64_fma_throughput", "sm_90", {"DFMA"}, {dfma}},
      {"fp16_hfma2_latency", "sm_90", {"HFMA2"}, {hfma}},
      {"fp16_hfma2_throughput", "sm_90", {"HFMA2"}, {hfma}},
      {"int32_iadd_latency", "sm_90", {"IADD3"}, {inst}},
      {"int32_imad_latency", "sm_90", {"IMAD"}, {inst}},
      {"int32_imad_throughput", "sm_90", {"IMAD"}, {inst}},
      {"sfu_rsqrt_latency", "sm_90", {"MUFU.RSQ"}, {inst}},
      {"sfu_rsqrt_throughput", "sm_90", {"MUFU.RSQ"}, {inst}},
      {"tensor_mma_f16_latency", "sm_90", {"HMMA.16816.F32"}, {hmma}},
      {"tensor_mma_f16_throughput", "sm_90", {"HMMA.16816.F32"}, {hmma}},
      {"tensor_wgmma_f16_throughput", "sm_90a", {"HGMMA.64x256x16.F32", "WARPGROUP.ARRIVE"},
       {tensor}},
      {"smem_latency", "sm_90", {"LDS", "LEA"}, {conflicts}},
      {"smem_bandwidth", "sm_90", {"LDS.128"}, {conflicts}},
      {"smem_banks", "sm_90", {"LDS"}, {conflicts}},
      {"smem_bank_conflict_penalty", "sm_90", {"LDS"}, {conflicts}},
      {"warp_schedulers_per_sm", "sm_90", {"FFMA"}, {ffma}},
      {"branch_divergence_penalty", "sm_90", {"BSSY", "BSYNC", "FFMA", "IMAD"},
       {"smsp__sass_average_branch_targets_threads_uniform.pct"}},
      {"shfl_latency", "sm_90", {"SHFL.BFLY"}, {inst}},
      {"l1_hit_latency", "sm_90", {"LDG.E.64", "IMAD.WIDE.U32"}, {l1_hits}},
      {"l2_hit_latency", "sm_90", {"LDG.E.64.STRONG.GPU", "IMAD.WIDE.U32"}, {l2_hits}},
      {"dram_latency", "sm_90", {"LDG.E.64.STRONG.GPU", "IMAD.WIDE.U32"}, {l2_hits, dram_read}},
      {"l1_size", "sm_90", {"LDG.E", "SHFL.IDX"}, {l1_hits}},
      {"l2_size", "sm_90", {"LDG.E.STRONG.GPU", "SHFL.IDX"}, {l2_hits}},
      {"l2_partition_size", "sm_90", {"LDG.E.64.STRONG.GPU"}, {l2_hits}},
      {"l1_line_size", "sm_90", {"LDG.E.64"}, {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"}},
      {"dram_bandwidth", "sm_90", {"LDG.E.128.STRONG.GPU"}, {dram_read}},
      {"l2_bandwidth", "sm_90", {"LDG.E.128.STRONG.GPU"}, {l2_hits}},
      {"registers_per_sm", "sm_90", {"FFMA", "S2R"}, {"launch__occupancy_limit_registers"}},
      {"sm_clock_mhz", "sm_90", {"FFMA"}, {"sm__cycles_elapsed.avg.per_second"}},
      {"sm_count", "sm_90", {"S2R"}, {"device__attribute_multiprocessor_count"}},
      {"max_warps_per_sm", "sm_90", {"S2R", "BAR"}, {"sm__warps_active.avg.pct_of_peak_sustained_active"}},
      {"max_registers_per_thread", "sm_90", {"FFMA"}, {"launch__registers_per_thread"}},
      {"warp_size", "sm_90", {"S2R", "VOTEU.ANY"}, {"device__attribute_warp_size"}},
  };
  return table;
}

std::vector<std::pair<std::string, std::string_view>> embedded_programs() {
  return {
#define WF_ENTRY(stem) {#stem, embedded::calibrate_bench_##stem},
      WF_BENCH_PROGRAMS(WF_ENTRY)
#undef WF_ENTRY
  };
}

// `#include "name"` -> name; empty for any other line.
std::string quoted_include(std::string_view line) {
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos || line.substr(first).rfind("#include", 0) != 0)
    return {};
  const auto open = line.find('"'), close = line.rfind('"');
  return open == std::string_view::npos || close <= open
             ? std::string{}
             : std::string(line.substr(open + 1, close - open - 1));
}

bool is_pragma_once(std::string_view line) {
  return line.find("#pragma once") != std::string_view::npos;
}

expected<void, std::string> inline_into(std::string& out, std::string_view text,
                                        std::string_view name, std::set<std::string>& included) {
  std::istringstream lines{std::string(text)};
  std::string line;
  for (std::size_t number = 1; std::getline(lines, line); ++number) {
    const std::string header = quoted_include(line);
    if (header.empty()) {
      if (!is_pragma_once(line))
        out += line + "\n";
      continue;
    }
    if (!included.insert(header).second)
      continue; // pasted already
    const auto headers = benchmark_headers();
    const auto found = std::find_if(headers.begin(), headers.end(),
                                    [&](const auto& entry) { return entry.first == header; });
    if (found == headers.end())
      return unexpected{std::string(name) + ":" + std::to_string(number) +
                             ": includes \"" + header + "\", which is not a benchmark header"};
    out += "// ---- " + header + " (calibrate/bench/kernels/" + header + ") ----\n";
    if (auto pasted = inline_into(out, found->second, header, included); !pasted)
      return pasted;
    out += "// ---- end of " + header + " ----\n";
  }
  return {};
}

} // namespace

std::vector<std::pair<std::string, std::string_view>> benchmark_headers() {
  return {
#define WF_ENTRY(stem) {#stem ".cuh", embedded::calibrate_bench_##stem},
      WF_BENCH_HEADERS(WF_ENTRY)
#undef WF_ENTRY
  };
}

expected<std::string, std::string> inline_headers(std::string_view source) {
  std::string out;
  std::set<std::string> included;
  if (auto done = inline_into(out, source, "source", included); !done)
    return unexpected{done.error()};
  return out;
}

const std::vector<benchmark>& built_in_benchmarks() {
  // The pasted sources live as long as the table (std::deque: stable addresses).
  static std::deque<std::string> sources;
  static const std::vector<benchmark> all = [] {
    std::vector<benchmark> list;
    const auto programs = embedded_programs();
    for (const auto& fact : facts()) {
      const auto program = std::find_if(programs.begin(), programs.end(), [&](const auto& p) {
        return p.first == fact.parameter;
      });
      if (program == programs.end())
        throw std::logic_error("no embedded program for " + std::string(fact.parameter));
      auto pasted = inline_headers(program->second);
      if (!pasted)
        throw std::logic_error("kernels/" + program->first + ".cu: " + pasted.error());
      sources.push_back(std::move(*pasted));
      list.push_back({std::string(fact.parameter), "kernels/" + program->first + ".cu",
                      sources.back(), std::string(fact.arch), fact.required_sass,
                      fact.counters});
    }
    return list;
  }();
  return all;
}

const benchmark* find_benchmark(std::string_view parameter) {
  const auto& all = built_in_benchmarks();
  const auto found = std::find_if(all.begin(), all.end(),
                                  [&](const benchmark& b) { return b.parameter == parameter; });
  return found == all.end() ? nullptr : &*found;
}

} // namespace warpforge::calibrate
