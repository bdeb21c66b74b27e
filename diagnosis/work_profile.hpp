#pragma once
// What work a kernel does, from its measured metrics: does it compute at all, and does it
// multiply matrices? The candidate methods must fit it (pipeline/diagnosis_summary.hpp): no
// compute-axis method for a kernel that does no arithmetic, no tensor cores for a kernel without
// dot products over reused operands, no fusion for one kernel in one launch. Each verdict carries
// its reason with the numbers, so a report or a prompt can say why a method was left out.
//
//   work_profile work = profile_work(d.metrics);     // completed metrics (diagnose.hpp)
//   if (work.arithmetic.verdict == work_verdict::no) ... work.arithmetic.reason

#include "diagnosis/metric_values.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::diagnosis {

/// The thresholds of the work verdicts.
struct work_policy {
  // FLOP per DRAM byte below which a kernel does no arithmetic worth a compute method: a copy
  // or a transpose is 0, a vector add 1/12 (one FADD per 12 bytes moved).
  double min_arithmetic_intensity = 0.1;
  // FLOP per DRAM byte from which non-tensor arithmetic can only be dot products over reused
  // operands (a matrix multiply): elementwise kernels and row-wise softmax / norms stay below
  // about 2 (a handful of FLOP per 4-byte element); a 2048^3 SGEMM is about 350.
  double min_matrix_intensity = 8.0;
  // Ratio: a pipe whose active-cycle share is below this is idle.
  double min_pipe_activity = 0.01;
};

/// Whether the metrics show a kind of work.
enum class work_verdict {
  yes,     // measured, present
  no,      // measured, absent: methods needing it do not fit
  unknown, // not measured: methods needing it are kept
};

inline constexpr std::array<work_verdict, 3> all_work_verdicts{
    work_verdict::yes, work_verdict::no, work_verdict::unknown};
std::string_view to_string(work_verdict verdict);
std::optional<work_verdict> work_verdict_from_string(std::string_view text);

struct work_finding {
  work_verdict verdict = work_verdict::unknown;
  std::string reason; // with the numbers that decided it
};

struct work_profile {
  std::optional<double> flop;               // non-tensor FLOP counted (fp16 + fp32 + fp64)
  std::optional<double> dram_bytes;         // bytes read + written
  std::optional<double> intensity;          // FLOP per DRAM byte
  std::optional<double> tensor_activity;    // ratio: the tensor pipe's busiest measure
  work_finding arithmetic;                  // floating-point work worth speeding up
  work_finding matrix_multiply;             // dot products over reused operands
};

/// The verdicts from completed metrics (schema keys, schema units).
work_profile profile_work(const metric_values& completed, const work_policy& policy = {});

} // namespace warpforge::diagnosis
