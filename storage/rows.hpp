#pragma once
// One plain struct per table of the run database (docs/run-directory.md documents every column).
// `id` fields are assigned by the database on insert and ignored by insert_*(); `seq` is the
// exception: the feed assigns it (see event_row). Times are unix seconds (UTC) as double; an
// empty `reason`/`detail` string means none.

#include "foundation/vocabulary/artifact_kind.hpp"
#include "foundation/vocabulary/branch.hpp"
#include "foundation/vocabulary/states.hpp"
#include "foundation/vocabulary/timing_mode.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::storage {

/// A row's INTEGER PRIMARY KEY.
using row_id = std::int64_t;
/// Seconds since 1970-01-01 00:00:00 UTC, with fractions.
using unix_seconds = double;

/// campaigns: one per `warpforge run` (normally one per run directory).
struct campaign_row {
  row_id id = 0;
  std::string name;
  std::string spec_path;          ///< the campaign spec as given on the command line
  std::string spec_toml;          ///< its full text, so the run directory is self-contained
  std::string run_dir;            ///< absolute path of the run directory
  vocabulary::campaign_state state = vocabulary::campaign_state::created;
  unix_seconds created_at = 0;
  unix_seconds updated_at = 0;
  std::optional<unix_seconds> finished_at; ///< set when the state becomes terminal
  std::string reason;             ///< why it failed or was interrupted; empty otherwise
};

/// jobs: one per problem (or catalog slice) of a campaign; name unique within the campaign.
struct job_row {
  row_id id = 0;
  row_id campaign_id = 0;
  std::string name;                          ///< also the folder name under jobs/
  std::string problem_path;                  ///< the problem spec
  vocabulary::job_state state = vocabulary::job_state::pending;
  std::int64_t iterations_done = 0;          ///< count of finished iterations
  std::optional<double> best_time_s;         ///< champion's median time, seconds
  std::optional<double> baseline_time_s;     ///< the starting kernel's median time, seconds
  unix_seconds updated_at = 0;
  std::string reason;                        ///< why it failed or was interrupted
};

/// iterations: number is unique within a job and starts at 1.
struct iteration_row {
  row_id id = 0;
  row_id job_id = 0;
  std::int64_t number = 0;                   ///< 1-based; the n of iter-<n>/
  vocabulary::iteration_state state = vocabulary::iteration_state::running;
  std::optional<row_id> champion_branch_id;  ///< the winning branch, once elected
  unix_seconds started_at = 0;
  std::optional<unix_seconds> finished_at;
  std::optional<std::string> gaps_json;      ///< the diagnosis' roofline gaps (JSON object)
};

/// branches: every candidate of an iteration (proposals, ablations, the baseline).
struct branch_row {
  row_id id = 0;
  row_id iteration_id = 0;
  std::int64_t ordinal = 0;                  ///< unique within the iteration; the k of branch-<k>/
  vocabulary::branch_kind kind = vocabulary::branch_kind::branch;
  std::optional<row_id> parent_branch_id;    ///< what it derives from (an ablation's champion)
  std::optional<vocabulary::branch_outcome> outcome;     ///< empty while the branch is in the pipeline
  std::string methods_json = "[]";           ///< claimed optimisation methods (JSON array)
  std::string defines_json = "{}";           ///< preprocessor defines / tunables (JSON object)
  std::string source_path;                   ///< kernel source, relative to the run directory
  std::string detail;                        ///< outcome detail: the error, the mismatch, ...
  unix_seconds created_at = 0;
  unix_seconds updated_at = 0;
  std::optional<std::int64_t> duplicate_of_iteration; ///< the same content as this earlier branch
  std::optional<std::int64_t> duplicate_of_ordinal;   ///< of the job (not built or raced again)
};

/// measurements: one timing series of one branch on one GPU in one mode.
struct measurement_row {
  row_id id = 0;
  row_id branch_id = 0;
  std::int64_t gpu = 0;                      ///< device ordinal on its host
  std::string gpu_name;                      ///< e.g. "NVIDIA H100 80GB HBM3"
  vocabulary::timing_mode mode = vocabulary::timing_mode::warm;
  double median_s = 0;                       ///< seconds per launch
  double mean_s = 0;                         ///< seconds
  double stddev_s = 0;                       ///< seconds
  double cv = 0;                             ///< stddev / mean; 1.0 = 100%
  double ci95_low_s = 0;                     ///< 95% confidence interval of the median, seconds
  double ci95_high_s = 0;                    ///< seconds
  double min_s = 0;                          ///< seconds
  std::int64_t samples = 0;                  ///< timed launches
  std::optional<double> sm_clock_mhz;        ///< SM clock during the run, MHz, when known
  unix_seconds created_at = 0;
};

/// events: the feed's events, in seq order. Context fields are empty when the event has none.
/// seq is assigned by the feed (one counter per run directory, strictly increasing, starting at
/// 1) and persisted as given; database::next_event_seq() resumes the counter.
struct event_row {
  std::int64_t seq = 0;
  unix_seconds ts = 0;
  std::string type;                          ///< the event type, e.g. "branch.measured"
  std::optional<std::string> campaign;       ///< campaign name
  std::optional<std::string> job;            ///< job name
  std::optional<std::int64_t> iter;          ///< iteration number
  std::optional<std::int64_t> branch;        ///< branch ordinal within the iteration
  std::optional<std::int64_t> gpu;           ///< device ordinal
  std::string json;                          ///< the whole event as published (JSON object)
};

/// artifacts: files of the run directory worth indexing; path unique.
struct artifact_row {
  row_id id = 0;
  vocabulary::artifact_kind kind = vocabulary::artifact_kind::source;
  std::string path;                          ///< relative to the run directory
  std::int64_t bytes = 0;                    ///< file size, bytes
  std::optional<std::string> sha256;         ///< hex digest of the content, when computed
  std::optional<row_id> branch_id;           ///< the branch it belongs to, if any
  unix_seconds created_at = 0;
};

/// llm_calls: one request to a language model while proposing an iteration of a job;
/// (job_id, iteration, seq) is unique.
struct llm_call_row {
  row_id id = 0;
  row_id job_id = 0;
  std::int64_t iteration = 0;                ///< 1-based: the iteration the proposal fills
  std::int64_t seq = 0;                      ///< 1-based place of the call in the proposal
  std::string purpose;                       ///< judge, compact, propose, reask, fix_compile, fix_correctness
  std::string model;                         ///< as the provider named it
  std::string outcome;                       ///< "ok", or the error's kind (rate_limited, ...)
  std::int64_t input_tokens = 0;             ///< tokens, cache reads and writes excluded
  std::int64_t output_tokens = 0;            ///< tokens
  std::int64_t cache_read_tokens = 0;        ///< tokens read from the provider's prompt cache
  std::int64_t cache_write_tokens = 0;       ///< tokens written to it
  double cost_usd = 0;                       ///< dollars, from the price table (0: unpriced)
  double seconds = 0;                        ///< wall time, retries and continuations included
  std::int64_t attempts = 0;                 ///< HTTP requests it took
  std::string transcript;                    ///< its file, relative to the run directory
  unix_seconds created_at = 0;               ///< when it was (last) written
};

/// deployments: one `warpforge deploy` of a job's champion into its project (migration 3);
/// work_dir unique. Timings are in the unit the deploy target reads (`unit`): a RESULT value as
/// the program prints it, or seconds of kernel time for observed timing.
struct deployment_row {
  row_id id = 0;
  std::string work_dir;                      ///< its folder, relative to the run directory; unique
  std::string job;                           ///< the job whose champion it deploys
  std::string champion;                      ///< e.g. "iter-3/branch-2", or the --source file
  bool given = false;                        ///< a person chose the source (the gate was skipped)
  std::string project;                       ///< absolute path of the project
  std::string file;                          ///< the target file, relative to the project
  std::string outcome;                       ///< deploy::deploy_outcome's text; "" while running
  std::string reason;                        ///< why it was not accepted; "" otherwise
  std::optional<double> before_median;       ///< baseline timing's median, in `unit`
  std::optional<double> before_spread;       ///< its max - min, in `unit`
  std::optional<double> after_median;        ///< the champion's timing median, in `unit`
  std::optional<double> after_spread;        ///< in `unit`
  std::string unit;                          ///< the result_key, or "s"
  unix_seconds started_at = 0;
  std::optional<unix_seconds> finished_at;   ///< set with the outcome
};

/// deploy_steps: every finished step of a deployment, in order; (deployment_id, seq) unique.
struct deploy_step_row {
  row_id id = 0;
  row_id deployment_id = 0;
  std::int64_t seq = 0;                      ///< 1-based order within the deployment
  std::string step;                          ///< deploy::deploy_step's text: gate, lock, build, ...
  std::string status;                        ///< deploy::step_status's text: passed, failed, ...
  std::string detail;                        ///< what happened or why not
  double seconds = 0;                        ///< wall time of the step, seconds
  std::int64_t attempt = 1;                  ///< build / fix_build / verify attempt, from 1
  std::string log;                           ///< its command's log, relative to the run directory
  unix_seconds created_at = 0;
};

/// A sum over llm_calls rows: what a job (or a campaign) spent on language models.
struct llm_spend {
  std::int64_t calls = 0;
  std::int64_t failed_calls = 0;             ///< calls whose outcome is not "ok"
  std::int64_t input_tokens = 0;             ///< tokens
  std::int64_t output_tokens = 0;            ///< tokens
  std::int64_t cache_read_tokens = 0;        ///< tokens
  std::int64_t cache_write_tokens = 0;       ///< tokens
  double cost_usd = 0;                       ///< dollars
  double seconds = 0;                        ///< wall time summed over the calls (they may overlap)

  /// Adds another sum (a job's to its campaign's).
  llm_spend& operator+=(const llm_spend& other) {
    calls += other.calls;
    failed_calls += other.failed_calls;
    input_tokens += other.input_tokens;
    output_tokens += other.output_tokens;
    cache_read_tokens += other.cache_read_tokens;
    cache_write_tokens += other.cache_write_tokens;
    cost_usd += other.cost_usd;
    seconds += other.seconds;
    return *this;
  }
  friend bool operator==(const llm_spend&, const llm_spend&) = default;
};

/// What `warpforge status` shows: one campaign, its jobs, its branches by outcome, the feed's
/// progress, and what each job spent on language models.
struct campaign_summary {
  campaign_row campaign;
  std::vector<job_row> jobs;                             ///< in insertion order
  std::map<vocabulary::branch_outcome, std::int64_t> branch_outcomes; ///< every outcome, 0 when none
  std::int64_t branches_pending = 0;                     ///< branches with no outcome yet
  std::optional<std::int64_t> last_event_seq;            ///< empty when no event was stored
  std::optional<unix_seconds> last_event_ts;
  std::map<row_id, llm_spend> llm_by_job;                ///< jobs with at least one model call
};

} // namespace warpforge::storage
