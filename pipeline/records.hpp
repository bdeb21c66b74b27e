#pragma once
// Recording a result: the store rows and the feed events each step of a branch leaves behind, and
// the files of the run directory (each branch's source, the job's memory, each iteration's
// proposal). Plain functions over the pipeline's nouns; the campaign engine calls them, the
// scheduler sends what they return. docs/events.md lists every event's detail fields.

#include "foundation/expected/expected.hpp"
#include "feed/event.hpp"
#include "gpu/device_report.hpp"
#include "gpu/runner/race_request.hpp"
#include "pipeline/build.hpp"
#include "pipeline/job_plan.hpp"
#include "pipeline/job_setup.hpp"
#include "storage/records.hpp"

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

namespace warpforge::pipeline {

/// One write for the store.
using store_write = std::variant<storage::job_state_change, storage::job_update, storage::iteration_update,
                                 storage::branch_record, storage::branch_outcome_change,
                                 storage::measurement_record, storage::llm_call_record>;

/// <run>/jobs/<job>/iter-<n>/branch-<k>/
std::filesystem::path branch_folder(const std::filesystem::path& run_dir, const std::string& job,
                                    std::int64_t iteration, std::int64_t ordinal);
/// <run>/jobs/<job>/
std::filesystem::path job_folder(const std::filesystem::path& run_dir, const std::string& job);

/// {"TILE":32,...} and ["tiling_smem",...]: the branch row's JSON columns.
std::string point_json(const config::tunable_point& point);
std::string methods_json(const std::vector<std::string>& methods);

/// Writes the branch's kernel source into its folder; the path relative to the run directory.
/// The error: the folder or file could not be made (a file-system error on the job's own files,
/// which ends that job, not the campaign).
expected<std::string, std::string> keep_source(const std::filesystem::path& run_dir, const job_setup& job, const planned_branch& b);

/// The branch's row.
storage::branch_record branch_row(std::int64_t job_id, const planned_branch& b, std::string source_path);

/// "per config: large 1.234 ms (weight 0.75), small 0.3102 ms (weight 0.25)": a passed kernel's
/// medians at each configuration, as its branch row's detail shows them.
std::string config_medians_text(const std::vector<gpu::config_median>& medians);

/// The result the plan gets for one kernel of a race (its SASS verdict's absent methods added;
/// passed at several configurations, its detail is config_medians_text).
branch_result result_of(const gpu::kernel_result& k, std::vector<std::string> sass_absent);

/// The measurement row of a kernel that passed.
storage::measurement_record measurement_row(const storage::branch_key& key, const gpu::device_info& device,
                                            vocabulary::timing_mode mode, const gpu::kernel_result& k,
                                            double sm_clock_hz);

/// An event of `job` (iteration / branch / gpu as given; -1: none), with its detail.
feed::event job_event(feed::event_type type, const std::string& job, std::int64_t iteration,
                      std::int64_t branch, int gpu, std::string detail_json = "{}");

/// branch_measured (or ablation_measured) with the timing, the per-phase costs and the race's
/// shared costs (and, measured at several configurations, `configs`: each one's name, weight and
/// median), or branch_failed with the outcome and why.
feed::event kernel_event(const std::string& job, const planned_branch& b, int gpu, const gpu::device_info& device,
                         const gpu::kernel_result& k, const gpu::race_result& race, double request_s);

/// Appends an iteration's lines to the job's memory.md.
void append_memory(const std::filesystem::path& run_dir, const std::string& job, const iteration_summary& summary);

/// Keeps a proposal as JSON in the iteration's folder (proposal.json), for resume and audit.
expected<void, std::string> write_proposal(const std::filesystem::path& run_dir, const std::string& job,
                                           std::int64_t iteration, const proposal& p);
/// Reads what write_proposal wrote; nullopt when there is none.
expected<std::optional<proposal>, std::string> read_proposal(const std::filesystem::path& run_dir,
                                                             const std::string& job, std::int64_t iteration);

/// Where the best time puts a job on the DRAM roofline (every buffer moved once over the time,
/// against the GPU's peak bandwidth): the iteration's gaps column before a diagnosis fills it.
/// Empty when either is unknown.
std::string roofline_position(double buffer_bytes, std::optional<double> best_s, std::optional<double> peak_bandwidth);

} // namespace warpforge::pipeline
