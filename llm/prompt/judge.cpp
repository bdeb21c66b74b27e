#include "llm/prompt/judge.hpp"

#include "llm/prompt/sections.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cmath>

namespace warpforge::embedded {
extern const std::string_view llm_prompt_judge_md;
extern const std::string_view llm_prompt_judge_reply_md;
} // namespace warpforge::embedded

namespace warpforge::llm {

namespace {

struct category_row {
  std::string_view id;
  std::string_view meaning;
};

constexpr std::array<category_row, judge_categories.size()> category_rows{{
  {"dram_bandwidth", "DRAM throughput near its peak: the kernel must move fewer bytes (dram_throughput, dram_bytes)"},
  {"cache_locality", "data is fetched again instead of reused: low l1_hit_rate / l2_hit_rate, dram_bytes well above the ideal"},
  {"uncoalesced_access", "warps touch scattered addresses: global_load/store_efficiency low, sectors per request above 4"},
  {"smem_bank_conflicts", "shared-memory accesses serialise: shared_bank_conflicts, stall_short_scoreboard"},
  {"register_spills", "registers spill to local memory: local_memory_instructions above 0, high registers_per_thread"},
  {"occupancy", "too few resident warps to hide latency: achieved_occupancy low, an occupancy_limit_* is the binding limit"},
  {"insufficient_parallelism", "too little work in flight: waves_per_sm below 1-2, sm_active low, small grid_size"},
  {"memory_latency", "warps wait on global memory while bandwidth is far from peak: stall_long_scoreboard high, memory_throughput low"},
  {"instruction_latency", "dependent instruction chains: stall_wait / stall_short_scoreboard high, low ipc, little ILP"},
  {"memory_instruction_issue", "too many narrow memory instructions: stall_mio_throttle / stall_lg_throttle high"},
  {"fp32_throughput", "the FP32 / FMA pipe is saturated: fp32_pipe high, stall_math_pipe_throttle, sm_throughput near peak"},
  {"tensor_core_underuse", "matrix-shaped work runs on the FP32 pipe while tensor_pipe is idle"},
  {"warp_divergence", "threads of a warp take different branches: branch_uniformity low"},
  {"synchronization", "warps wait at barriers or fences: stall_barrier / stall_membar high"},
  {"launch_overhead", "the kernel is so short (a few microseconds, duration) that launch and the tail wave dominate"},
}};

constexpr bool rows_follow_the_list() {
  for (std::size_t i = 0; i < judge_categories.size(); ++i)
    if (category_rows[i].id != judge_categories[i])
      return false;
  return true;
}
static_assert(rows_follow_the_list(), "category_rows must list judge_categories, in order");

std::string categories_block() {
  std::string out;
  for (const auto& row : category_rows)
    out += "- " + std::string{row.id} + ": " + std::string{row.meaning} + "\n";
  return out;
}

/// The reply without blanks around it and without a ```json fence around the object.
std::string_view unfenced(std::string_view text) {
  const auto blank = " \t\r\n";
  const auto first = text.find_first_not_of(blank);
  if (first == std::string_view::npos)
    return {};
  text = text.substr(first, text.find_last_not_of(blank) - first + 1);
  if (text.starts_with("```") && text.ends_with("```") && text.size() >= 6) {
    text = text.substr(0, text.size() - 3);
    text.remove_prefix(std::min(text.find('\n'), text.size()));
  }
  return text;
}

expected<cited_metric, std::string> check_citation(simdjson::dom::element element, const std::string& where,
                                                   const std::vector<metric_fact>& metrics, citation_tolerance tol) {
  std::string_view name;
  double value = 0;
  if (element["metric"].get(name) != simdjson::SUCCESS)
    return unexpected{where + ": \"metric\" is missing or not a string"};
  if (element["value"].get(value) != simdjson::SUCCESS)
    return unexpected{where + ": \"value\" of " + std::string{name} + " is missing or not a number"};
  const auto found = std::find_if(metrics.begin(), metrics.end(), [&](const metric_fact& m) { return m.name == name; });
  if (found == metrics.end())
    return unexpected{where + ": metric \"" + std::string{name} + "\" is not in the profile; cite only metrics it lists"};
  const auto measured = shown(*found);
  const double difference = std::fabs(value - measured.value);
  if (difference > tol.absolute && difference > tol.relative * std::fabs(measured.value))
    return unexpected{where + ": " + std::string{name} + " is cited as " + format_number(value) + " but the profile shows " +
                      format_number(measured.value) + (measured.unit.empty() ? "" : " " + measured.unit)};
  return cited_metric{std::string{name}, value};
}

expected<bottleneck, std::string> parse_bottleneck(simdjson::dom::object root, const std::string& where,
                                                   const std::vector<metric_fact>& metrics, citation_tolerance tol) {
  simdjson::dom::object object;
  if (root[where].get(object) != simdjson::SUCCESS)
    return unexpected{"\"" + where + "\" is missing or not an object; exactly two bottlenecks, primary and secondary"};
  bottleneck b;
  std::string_view text;
  if (object["category"].get(text) != simdjson::SUCCESS)
    return unexpected{where + ".category: missing or not a string"};
  b.category = std::string{text};
  if (std::find(judge_categories.begin(), judge_categories.end(), text) == judge_categories.end())
    return unexpected{where + ".category: \"" + b.category + "\" is not one of the categories"};
  if (object["summary"].get(text) != simdjson::SUCCESS || text.empty())
    return unexpected{where + ".summary: missing, empty or not a string"};
  b.summary = std::string{text};
  simdjson::dom::array evidence;
  if (object["evidence"].get(evidence) != simdjson::SUCCESS || evidence.size() == 0)
    return unexpected{where + ".evidence: missing, empty or not an array; cite at least one measured metric"};
  std::size_t index = 0;
  for (auto element : evidence) {
    auto cited = check_citation(element, where + ".evidence[" + std::to_string(index++) + "]", metrics, tol);
    if (!cited)
      return unexpected{cited.error()};
    b.evidence.push_back(std::move(*cited));
  }
  return b;
}

} // namespace

std::string_view category_meaning(std::string_view category) {
  for (const auto& row : category_rows)
    if (row.id == category)
      return row.meaning;
  return {};
}

prompt build_judge_prompt(const prompt_inputs& in) {
  prompt p;
  p.stable.push_back(std::string{embedded::llm_prompt_judge_md} + categories_block() + "\n" +
                     std::string{embedded::llm_prompt_judge_reply_md});
  p.stable.push_back(render_gpu(in.gpu) + "\n" + render_problem(in.problem));
  p.changing = render_best(in) + "\n";
  if (!in.diagnosis) {
    p.changing += "## Profile\nNo metrics were measured.\n";
    return p;
  }
  const auto& d = *in.diagnosis;
  p.changing += "## Profile (ratios shown as %)\n" + render_metrics(d.metrics) + "\n## Roofline\nBottleneck by the "
                "roofline: " + d.bottleneck + "\n";
  for (const auto& line : d.roofline)
    p.changing += "- " + line + "\n";
  p.changing.append("\n## Findings of the rule matrix\n").append(render_findings(d.fired));
  return p;
}

expected<judge_verdict, std::string> parse_judge(std::string_view reply, const std::vector<metric_fact>& metrics,
                                                 citation_tolerance tolerance) {
  simdjson::dom::parser parser;
  simdjson::dom::object root;
  const auto error = parser.parse(simdjson::padded_string{unfenced(reply)}).get(root);
  if (error != simdjson::SUCCESS)
    return unexpected{"the reply is not one JSON object (" + std::string{simdjson::error_message(error)} + ")"};
  for (auto field : root)
    if (field.key != "primary" && field.key != "secondary")
      return unexpected{"unexpected key \"" + std::string{field.key} + "\": exactly two bottlenecks, primary and secondary"};
  auto primary = parse_bottleneck(root, "primary", metrics, tolerance);
  if (!primary)
    return unexpected{primary.error()};
  auto secondary = parse_bottleneck(root, "secondary", metrics, tolerance);
  if (!secondary)
    return unexpected{secondary.error()};
  if (secondary->category == primary->category)
    return unexpected{"secondary.category: \"" + secondary->category + "\" repeats the primary's; the two must differ"};
  return judge_verdict{std::move(*primary), std::move(*secondary)};
}

std::string render_judge(const judge_verdict& v) {
  std::string out = "## Judge's analysis of the current best\n";
  const auto one = [&](std::string_view rank, const bottleneck& b) {
    out += std::string{rank} + ": " + b.category + ": " + b.summary + " (evidence:";
    for (const auto& c : b.evidence)
      out += " " + c.name + " = " + format_number(c.value) + ",";
    out.back() = ')';
    out += "\n";
  };
  one("Primary", v.primary);
  one("Secondary", v.secondary);
  return out;
}

} // namespace warpforge::llm
