#pragma once
// What a run directory's database says about a campaign, gathered once and shaped for humans and
// programs: per job the baseline and best times, the timeline of iterations, the bottleneck drift
// (roofline gaps per iteration), every branch with its measurements, and what each claimed method
// was worth (ablation attribution). Read-only: works while the campaign runs, and afterwards.
//
//   auto report = load_report(run_dir);            // error names the folder and the reason
//   std::cout << render_markdown(*report);         // summary.md
//   write_charts(*report, run_dir);                // speedup.svg, roofline.svg beside it

#include "foundation/expected/expected.hpp"
#include "report/peak_fraction.hpp"
#include "report/llm_usage.hpp"
#include "report/throughput.hpp"
#include "storage/rows.hpp"
#include "storage/store_error.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::report {

/// The diagnosis recorded with an iteration (iterations.gaps_json); absent keys stay empty.
struct iteration_gaps {
  std::optional<double> compute; // Δc, 0 = at the peak
  std::optional<double> memory;  // Δm
  std::optional<double> latency; // Δl
  std::optional<bool> near_peak;
  std::optional<double> arithmetic_intensity; // FLOP per DRAM byte
  std::optional<double> achieved_flops;       // FLOP/s
  std::optional<double> achieved_bandwidth;   // DRAM bytes/s
  std::optional<double> peak_flops;           // FLOP/s of the precision in use
  std::optional<double> peak_bandwidth;       // DRAM bytes/s
  std::optional<double> peak_fraction;        // ratio, on the binding axis (diagnosis/roofline.hpp)
  std::string binding_axis;                   // "compute" / "memory"; empty: not known
  std::string precision;                      // "fp32"...: the precision peak_flops is for
  std::string binding_kind;     // the hierarchical roofline's binding level: "l1_bound", "dram_bound",
                                // ... (diagnosis/hierarchical_roofline.hpp); empty: not recorded
  std::string binding_headline; // the same in words, with every level's throughput
  std::optional<double> flop;                 // non-tensor FLOP counted in the profile
  std::optional<double> dram_bytes;           // bytes of DRAM traffic in the profile
  std::optional<double> duration;             // seconds, the profiled launch
};

// Every figure below that was not measured is nullopt, never 0, and its *_not_measured text says
// why ("" when it was measured): each output writes "not measured (why)" or null with the reason.

/// One branch and its fastest measurement over the GPUs it ran on.
struct branch_entry {
  storage::branch_row row;
  std::vector<storage::measurement_row> measurements;
  std::optional<double> best_time_s; // fastest median over the GPUs
  std::string time_not_measured;     // why best_time_s is absent: "not_run: ... need a GPU"
  std::vector<std::string> methods;  // from methods_json
};

struct iteration_entry {
  storage::iteration_row row;
  iteration_gaps gaps;
  std::vector<branch_entry> branches;
  std::optional<double> champion_time_s;
  std::string champion_not_measured; // why champion_time_s is absent
  std::string gaps_not_measured;     // why the gaps are absent (no profile recorded)
};

/// effective / ineffective / implementation_failed / not_measured (docs/tuner.md).
struct method_verdict {
  std::string method;
  std::int64_t iteration = 0;
  std::optional<double> attribution_s; // time without the method − time of the champion
  std::string verdict;
};

/// Why each of a job's headline figures is absent; "" for one that was measured.
struct job_not_measured {
  std::string baseline_time_s;
  std::string best_time_s;
  std::string speedup;
  std::string peak_fraction;
};

struct job_entry {
  storage::job_row row;
  std::vector<iteration_entry> iterations;
  std::vector<method_verdict> methods;
  std::optional<double> speedup;       // baseline / best; absent when either is
  std::optional<double> peak_fraction; // ratio: peak.value (report/peak_fraction.hpp)
  std::optional<report::peak_fraction> peak; // the binding axis, its peak, and the basis
  job_not_measured not_measured;       // why a figure above (or the row's times) is absent
  llm_usage llm;                       // its language-model calls (empty: none, e.g. the tuner)
};

struct campaign_report {
  std::filesystem::path run_dir;
  storage::campaign_row campaign;
  std::vector<job_entry> jobs;
  double noise_threshold = 0.02; // for the ineffective verdict when none is recorded
  llm_usage llm;                 // every job's language-model calls, summed
  campaign_throughput throughput; // candidates per GPU-hour, where each GPU's time went
};

/// Why a job's times are absent: its own recorded reason (it failed, and why), else the
/// campaign's (e.g. "no GPU here: ..."), else how far it got ("not measured yet" while pending or
/// running, "no measurement recorded" after). `warpforge status` says the same.
std::string job_not_measured_reason(const storage::campaign_row& campaign, const storage::job_row& job);

/// Reads the campaign of `run_dir` (its most recent one).
expected<campaign_report, storage::store_error> load_report(const std::filesystem::path& run_dir);

/// summary.md: headline speed-ups, peak fractions, timeline, bottleneck drift, methods.
std::string render_markdown(const campaign_report& report);
/// One JSON object with everything above.
std::string render_json(const campaign_report& report);
/// One line per (branch, GPU) measurement, and per branch without one.
std::string render_csv(const campaign_report& report);

/// The speed-up per iteration and the roofline position, as SVG text.
/// The file a job's chart is written to in the run directory ("speedup", "roofline"): the job's
/// name through storage::path_component, so no spec name can place a file outside it.
std::string chart_file_name(std::string_view job_name, std::string_view chart);
std::string speedup_chart_svg(const job_entry& job);
std::string roofline_chart_svg(const job_entry& job);

/// Writes summary.md and per job <job>-speedup.svg and <job>-roofline.svg into `run_dir`;
/// returns the files written (relative to run_dir) or what failed.
expected<std::vector<std::string>, std::string> write_summary(const campaign_report& report);

} // namespace warpforge::report
