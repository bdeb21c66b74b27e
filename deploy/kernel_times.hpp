#pragma once
// Every kernel of the user's program, before and after a deploy (observed timing only): a header
// shared by a kernel, so a champion's `#define` changes its neighbours too (a transpose file whose
// eight kernels share TILE_DIM). The launch log has every launch of every kernel anyway; this
// sums them per kernel and per run, compares the two program versions kernel by kernel, and
// says which got slower beyond their own noise. run_deploy's decide step refuses a champion that
// slows another kernel or grows the program's total kernel time (deploy/README.md, "Timing").
//
//   auto before = tally_kernels(baseline_runs);   // one vector of launch_time per run
//   auto after = tally_kernels(champion_runs);
//   auto cmp = compare_kernels(before, after);    // cmp.rows, cmp.total
//   for (auto* k : slower_others(cmp)) ...        // the reason names each with its numbers

#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::deploy {

/// One launch as the timing sees it.
struct launch_time {
  std::string kernel;     // demangled name: launches of the same name are one kernel
  bool named = false;     // the deploy's kernel (target.kernel matches it)
  double duration_s = 0;  // GPU time, seconds
};

/// One kernel (or all of them) over the timing runs of one program version.
struct kernel_time {
  std::vector<double> samples; // seconds: per run, the sum of its launches (0 in a run without one)
  double median = 0;           // seconds, of the samples
  double spread = 0;           // seconds: max - min of the samples (the noise the repeats show)
  std::int64_t launches = 0;   // over all runs

  friend bool operator==(const kernel_time&, const kernel_time&) = default;
};

/// Every kernel of one program version: by name, and their sum per run.
struct program_kernels {
  std::map<std::string, kernel_time> by_kernel; // demangled name -> its time
  std::map<std::string, bool> named;            // name -> whether it is the deploy's kernel
  kernel_time total;                            // per run, the sum of every launch

  friend bool operator==(const program_kernels&, const program_kernels&) = default;
};

/// Sums `runs` (one list of launches per timing run, in run order) per kernel and in total.
program_kernels tally_kernels(const std::vector<std::vector<launch_time>>& runs);

/// How one kernel's time changed. noise = the larger of its two spreads; a kernel launched on
/// one side only counts as 0 s with no noise on the other.
enum class kernel_verdict : std::uint8_t {
  faster,       // before - after > noise
  within_noise, // |after - before| <= noise
  slower,       // after - before > noise
};
std::string_view to_string(kernel_verdict verdict);
std::optional<kernel_verdict> kernel_verdict_from_string(std::string_view text);
inline constexpr kernel_verdict all_kernel_verdicts[] = {kernel_verdict::faster, kernel_verdict::within_noise,
                                                        kernel_verdict::slower};

/// One kernel's before and after. A side is absent where the kernel was not launched: never a
/// number where nothing was measured.
struct kernel_change {
  std::string kernel;               // demangled name; "all kernels" for the total
  bool named = false;               // the deploy's kernel
  std::optional<kernel_time> before;
  std::optional<kernel_time> after;
  kernel_verdict verdict = kernel_verdict::within_noise;

  double noise() const; // seconds: the larger spread of the sides measured
  friend bool operator==(const kernel_change&, const kernel_change&) = default;
};

/// The whole comparison: what the journal keeps and `warpforge deploy` prints.
struct kernel_comparison {
  bool timed = false;               // observed timing: every kernel was timed; false: RESULT
                                    // timing, where no kernel but the program's value was
  std::vector<kernel_change> rows;  // the named kernel(s) first, then the others by name
  std::optional<kernel_change> total; // all kernels (timed only)

  friend bool operator==(const kernel_comparison&, const kernel_comparison&) = default;
};

/// Compares every kernel of `before` with `after`; total = the programs' sums.
kernel_comparison compare_kernels(const program_kernels& before, const program_kernels& after);

/// RESULT timing: nothing but the program's own value was timed.
kernel_comparison untimed_kernels();

/// The kernels other than the named one that got slower beyond their noise.
std::vector<const kernel_change*> slower_others(const kernel_comparison& comparison);

/// Whether the program's total kernel time grew (after's median above before's, noise or not).
bool total_grew(const kernel_comparison& comparison);

/// The kernels (the named one included) launched a different number of times after than before,
/// one that stopped or started being launched among them: the program did other work, so the
/// times compare nothing (fewer solver iterations, a skipped kernel would read as a gain).
std::vector<const kernel_change*> launches_changed(const kernel_comparison& comparison);

/// "k 303 -> 0 launches" for a row launches_changed returned.
std::string launches_text(const kernel_change& change);

/// "optimized 0.0600 -> 0.0700 ms (+16.7%, noise 0.0010 ms)"; a missing side says "not launched".
std::string change_text(const kernel_change& change);

/// The note of RESULT timing: other kernels were not timed.
inline constexpr std::string_view untimed_note =
  "other kernels were not timed: timing \"result\" reads the program's RESULT line only "
  "(timing = \"observed\" times every kernel)";

/// The lines `warpforge deploy` prints: one per kernel, then the total (or the untimed note).
std::vector<std::string> comparison_lines(const kernel_comparison& comparison);

/// The comparison as JSON (the journal's "kernels"), and read back from it.
std::string comparison_json(const kernel_comparison& comparison);
expected<kernel_comparison, std::string> comparison_from_json(std::string_view json_text);

/// The "kernels" of a journal.json text: nullopt when the deploy wrote none (it ended before
/// its first timing); an error names what is wrong.
expected<std::optional<kernel_comparison>, std::string> comparison_in_journal(std::string_view journal_text);

} // namespace warpforge::deploy
