#include "diagnosis/work_profile.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpforge::diagnosis {
namespace {

std::string number(double value, const char* format = "%.3g") {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string percent(double ratio) { return number(ratio * 100, "%.1f%%"); }

/// The non-tensor FLOP counted: flop_total, else the precisions that were counted.
std::optional<double> counted_flop(const metric_values& metrics) {
  if (auto total = value_of(metrics, "flop_total"))
    return total;
  std::optional<double> sum;
  for (const auto* key : {"flop_fp32", "flop_fp16", "flop_fp64"})
    if (auto part = value_of(metrics, key))
      sum = sum.value_or(0.0) + *part;
  return sum;
}

/// The busiest of the arithmetic pipes that were measured, with its name.
std::optional<std::pair<double, std::string>> busiest_pipe(const metric_values& metrics) {
  std::optional<std::pair<double, std::string>> busiest;
  for (const auto* key : {"fp32_pipe", "fp16_pipe", "fp64_pipe", "tensor_pipe",
                          "tensor_hmma_pipe", "tensor_imma_pipe"})
    if (auto v = value_of(metrics, key); v && (!busiest || *v > busiest->first))
      busiest = std::pair{*v, std::string{key}};
  return busiest;
}

work_finding judge_arithmetic(const work_profile& w, const metric_values& metrics,
                              const work_policy& policy) {
  if (w.tensor_activity && *w.tensor_activity >= policy.min_pipe_activity)
    return {work_verdict::yes, "the tensor pipe is " + percent(*w.tensor_activity) + " active"};
  if (w.flop && w.intensity) {
    const auto text = number(*w.flop) + " FLOP over " + number(*w.dram_bytes) +
                      " bytes of DRAM traffic: " + number(*w.intensity) + " FLOP per byte";
    if (*w.intensity >= policy.min_arithmetic_intensity)
      return {work_verdict::yes, text};
    return {work_verdict::no, text + ", below the " + number(policy.min_arithmetic_intensity) +
                                " that arithmetic worth a compute method needs"};
  }
  if (w.flop && *w.flop == 0)
    return {work_verdict::no, "no floating-point instruction was executed (0 FLOP counted)"};
  if (auto pipe = busiest_pipe(metrics)) {
    const auto text = "the busiest arithmetic pipe (" + pipe->second + ") is " +
                      percent(pipe->first) + " active";
    return {pipe->first >= policy.min_pipe_activity ? work_verdict::yes : work_verdict::no, text};
  }
  return {work_verdict::unknown, "neither FLOP counts nor pipe activity were measured"};
}

work_finding judge_matrix_multiply(const work_profile& w, const work_policy& policy) {
  if (w.tensor_activity && *w.tensor_activity >= policy.min_pipe_activity)
    return {work_verdict::yes, "the tensor pipe is " + percent(*w.tensor_activity) +
                                   " active: matrix-multiply instructions run"};
  if (w.arithmetic.verdict == work_verdict::no)
    return {work_verdict::no, "no arithmetic to speak of: " + w.arithmetic.reason};
  if (w.intensity) {
    const auto text = number(*w.intensity) + " FLOP per DRAM byte";
    if (*w.intensity >= policy.min_matrix_intensity)
      return {work_verdict::yes, text + ": only dot products over reused operands reach it"};
    return {work_verdict::no, text + ", below the " + number(policy.min_matrix_intensity) +
                                " a matrix multiply's operand reuse gives: elementwise or "
                                "row-wise work, no dot products for tensor cores"};
  }
  return {work_verdict::unknown, "FLOP and DRAM bytes were not both measured"};
}

} // namespace

constexpr vocabulary::enum_word<work_verdict> work_verdict_words[] = {
    {work_verdict::yes, "yes"},
    {work_verdict::no, "no"},
    {work_verdict::unknown, "unknown"},
};
static_assert(vocabulary::covers(work_verdict_words, all_work_verdicts));

std::string_view to_string(work_verdict verdict) { return vocabulary::word_of(work_verdict_words, verdict); }

std::optional<work_verdict> work_verdict_from_string(std::string_view text) {
  return vocabulary::value_of(work_verdict_words, text);
}

work_profile profile_work(const metric_values& completed, const work_policy& policy) {
  work_profile w;
  w.flop = counted_flop(completed);
  w.dram_bytes = value_of(completed, "dram_bytes");
  if (w.flop && w.dram_bytes && *w.dram_bytes > 0)
    w.intensity = *w.flop / *w.dram_bytes;
  for (const auto* key : {"tensor_pipe", "tensor_hmma_pipe", "tensor_imma_pipe"})
    if (auto v = value_of(completed, key))
      w.tensor_activity = std::max(w.tensor_activity.value_or(0.0), *v);
  w.arithmetic = judge_arithmetic(w, completed, policy);
  w.matrix_multiply = judge_matrix_multiply(w, policy);
  return w;
}

} // namespace warpforge::diagnosis
