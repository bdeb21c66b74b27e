#pragma once
// Representative configurations of one kernel: the few launch configurations that stand for
// where the kernel spends its time in a real program (issue 13, "Representative configurations").
//
//   auto picked = select_representative(launches_of_transpose, {});
//   for (const auto& c : picked->configs) use(c.grid, c.weight, c.scalars);
//
// The rule: group launches by (grid, block, dynamic shared memory); a group whose p95/p25
// duration ratio is above split_ratio splits into a fast bucket (duration <= the group's median)
// and a slow one (> median); rank the buckets by total time; keep buckets, largest first, until
// they cover >= `coverage` of the kernel's total time, at most top_k. Weights are each kept
// bucket's time over the kept total (they sum to 1); coverage is its time over ALL time.
//
// Every quantile (p25, median, p95) is one function, quantile(): linear interpolation between
// order statistics (Hyndman & Fan type 7), so the median agrees with gpu::summarize's.
//
// Launches with an unknown duration (0: the launch path gave no activity record) carry no time:
// they are left out of the selection and counted (launches_without_duration, and a note); when no
// launch of the kernel has a duration the selection is an error. Times are in seconds.

#include "foundation/expected/expected.hpp"
#include "deploy/observe/launches/launch_record.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::observe {

struct representative_options {
  double split_ratio = 2.5; // p95/p25 of a geometry's durations above this: fast/slow buckets
  double coverage = 0.90;   // stop once the kept buckets hold this share of the time, 1.0 = 100%
  std::size_t top_k = 5;    // keep at most this many buckets
};

/// Which launches of a geometry a configuration stands for.
enum class duration_bucket : std::uint8_t {
  all,  // the geometry did not split
  fast, // duration <= the geometry's median
  slow, // duration > the geometry's median
};
std::string_view to_string(duration_bucket bucket);
std::optional<duration_bucket> duration_bucket_from_string(std::string_view text);
inline constexpr duration_bucket all_duration_buckets[] = {duration_bucket::all, duration_bucket::fast,
                                                           duration_bucket::slow};

/// One kept configuration.
struct representative_config {
  std::string kernel;                          // the launches' symbol (mangled for C++ kernels)
  std::array<std::uint32_t, 3> grid{1, 1, 1};  // blocks
  std::array<std::uint32_t, 3> block{1, 1, 1}; // threads
  std::uint32_t dynamic_smem = 0;              // bytes
  duration_bucket bucket = duration_bucket::all;
  std::size_t launches = 0;    // launches in the bucket
  double total_s = 0.0;        // seconds, sum of their durations
  double median_s = 0.0;       // seconds
  double p25_s = 0.0;          // seconds
  double p95_s = 0.0;          // seconds
  double weight = 0.0;         // total_s / the kept configs' total; kept weights sum to 1
  double coverage = 0.0;       // total_s / the kernel's total time, 1.0 = 100%
  std::uint64_t median_sequence = 0;   // sequence of the launch whose duration is the median's
  std::vector<param_bytes> scalars;    // that launch's parameters (all of them, as passed)
};

struct representative_selection {
  std::vector<representative_config> configs; // ranked by total_s, largest first
  double total_s = 0.0;            // seconds: every timed launch of the kernel
  double covered = 0.0;            // sum of the kept configs' coverage, 1.0 = 100%
  std::size_t launches = 0;        // launches given
  std::size_t launches_without_duration = 0; // of them, left out (duration unknown)
  std::vector<std::string> notes;  // e.g. why coverage stopped short
};

/// The q-quantile (0 <= q <= 1) of ascending `sorted` by linear interpolation (type 7); 0 for
/// an empty span.
double quantile(std::span<const double> sorted, double q);

/// The representative configurations of `launches`, which are all of one kernel. An error when
/// the options are out of range (split_ratio < 1, coverage outside (0, 1], top_k 0) or no launch
/// has a duration.
expected<representative_selection, std::string>
select_representative(std::span<const launch_record> launches, const representative_options& options);

/// One kernel's selection, for observations of several kernels.
struct kernel_selection {
  std::string kernel;                 // symbol (mangled for C++ kernels)
  std::string demangled;
  representative_selection selection; // a kernel with no timed launch: no configs, a note why
};
/// select_representative for each kernel in `launches` (by symbol, in order of first launch);
/// an error only for options out of range.
expected<std::vector<kernel_selection>, std::string>
select_per_kernel(std::span<const launch_record> launches, const representative_options& options);

} // namespace warpforge::observe
