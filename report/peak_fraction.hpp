#pragma once
// The fraction of peak a job's best kernel reached: its achieved rate on the axis that binds it
// (compute when its arithmetic intensity reaches the GPU's ridge point, else DRAM bandwidth),
// against that axis's peak for the precision it computes in, over the job's best measured time
// (CUDA events). The FLOP are the job's work, counted once (the first profile asks ncu for the
// SASS FLOP counters; later champions get CUPTI's counters alone, without them), so a later
// profile without FLOP counts never turns the peak fraction into the DRAM fraction.

#include <optional>
#include <string>

namespace warpforge::report {

struct job_entry;

struct peak_fraction {
  double value = 0;      // ratio: achieved / peak
  std::string axis;      // "compute" or "memory"
  double achieved = 0;   // FLOP/s (compute) or bytes/s (memory)
  double peak = 0;       // FLOP/s or bytes/s
  std::string peak_name; // "fp32 non-tensor", "DRAM", or "DRAM (FLOP not counted ...)"
  std::string basis;     // where the numbers came from, for the reader
};

/// From the job's recorded iterations (gaps_json) and best time; nullopt when no peak or rate
/// was ever recorded.
std::optional<peak_fraction> peak_fraction_of(const job_entry& job);

/// "10.3% of the fp32 non-tensor peak (6.90 TFLOP/s of 67.0 TFLOP/s)".
std::string describe(const peak_fraction& fraction);

} // namespace warpforge::report
