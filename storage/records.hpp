#pragma once
// What the store writes: one plain struct per change to the run directory's database. The store
// actor (actors/store) applies them through storage::database; the pipeline library builds them
// (pipeline/records.hpp); messages/store.hpp gives them an inspect so they cross actors.

#include "foundation/vocabulary/branch.hpp"
#include "foundation/vocabulary/states.hpp"
#include "foundation/vocabulary/timing_mode.hpp"

#include <cstdint>
#include <string>

namespace warpforge::storage {

struct campaign_record {
  std::string name;
  std::string spec_path;
  std::string spec_toml;
  std::string run_dir;
  friend bool operator==(const campaign_record&, const campaign_record&) = default;
};

struct job_record {
  std::int64_t campaign_id = 0;
  std::string name;
  std::string problem_path;
  friend bool operator==(const job_record&, const job_record&) = default;
};

struct campaign_state_change {
  std::int64_t campaign_id = 0;
  vocabulary::campaign_state state = vocabulary::campaign_state::created;
  std::string reason; // why it failed or was interrupted
  friend bool operator==(const campaign_state_change&, const campaign_state_change&) = default;
};

struct job_state_change {
  std::int64_t job_id = 0;
  vocabulary::job_state state = vocabulary::job_state::pending;
  std::string reason;
  friend bool operator==(const job_state_change&, const job_state_change&) = default;
};

/// Where a branch lives: its job's row and its place in the job's iterations. The store finds (or
/// makes) the rows behind it, so every write keyed by it can be repeated without harm.
struct branch_key {
  std::int64_t job_id = 0;
  std::int64_t iteration = 0; // 1-based
  std::int64_t ordinal = 0;   // unique within the iteration
  friend bool operator==(const branch_key&, const branch_key&) = default;
};

/// A job's progress: iterations finished, its best and its baseline time (0: not yet known).
struct job_update {
  std::int64_t job_id = 0;
  std::int64_t iterations_done = 0;
  double best_time_s = 0;
  double baseline_time_s = 0;
  friend bool operator==(const job_update&, const job_update&) = default;
};

/// An iteration row's mutable fields, written together (made when it does not exist yet): its
/// state, its champion once elected, whether it has finished, and the diagnosis' roofline gaps.
struct iteration_update {
  std::int64_t job_id = 0;
  std::int64_t number = 0;             // 1-based
  vocabulary::iteration_state state = vocabulary::iteration_state::running;
  std::int64_t champion_ordinal = -1;  // -1: none (yet)
  bool finished = false;               // true: finished_at = the store's clock now
  std::string gaps_json;               // JSON object of the gaps; empty: leave as it is
  friend bool operator==(const iteration_update&, const iteration_update&) = default;
};

/// A branch of an iteration, before it has an outcome (its iteration row is made when needed;
/// recording the same key again leaves the row as it is).
struct branch_record {
  branch_key key;
  vocabulary::branch_kind kind = vocabulary::branch_kind::branch;
  std::int64_t parent_ordinal = -1;  // an ablation: the champion's ordinal; -1: none
  std::string methods_json = "[]";
  std::string defines_json = "{}";
  std::string source_path;           // relative to the run directory
  std::int64_t duplicate_of_iteration = -1; // the same content as this earlier branch of the
  std::int64_t duplicate_of_ordinal = -1;   // job (never built or raced); -1: not a duplicate
  friend bool operator==(const branch_record&, const branch_record&) = default;
};

/// A branch's verdict (and why, when it is not passed).
struct branch_outcome_change {
  branch_key key;
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run;
  std::string detail;
  friend bool operator==(const branch_outcome_change&, const branch_outcome_change&) = default;
};

/// One timing series of a branch on one GPU (the columns of storage::measurement_row); a second
/// one for the same GPU and mode replaces the first.
struct measurement_record {
  branch_key key;
  std::int64_t gpu = 0;
  std::string gpu_name;
  vocabulary::timing_mode mode = vocabulary::timing_mode::warm;
  double median_s = 0;
  double mean_s = 0;
  double stddev_s = 0;
  double cv = 0;
  double ci95_low_s = 0;
  double ci95_high_s = 0;
  double min_s = 0;
  std::int64_t samples = 0;
  double sm_clock_mhz = 0; // 0: unknown
  friend bool operator==(const measurement_record&, const measurement_record&) = default;
};

/// One request to a language model while proposing (pipeline::model_call) for a job's iteration.
/// Keyed by (job_id, iteration, seq): a second write of the same key replaces the first, so a
/// repeated write (a store restart, a resumed campaign) leaves one row.
struct llm_call_record {
  std::int64_t job_id = 0;
  std::int64_t iteration = 0;           // 1-based: the iteration the proposal fills
  std::int64_t seq = 0;                 // 1-based place of the call in the proposal's calls
  std::string purpose;                  // judge, compact, propose, reask, fix_compile, fix_correctness
  std::string model;                    // as the provider named it
  std::string outcome;                  // "ok", or the error's kind (rate_limited, ...)
  std::int64_t input_tokens = 0;        // tokens, cache reads and writes excluded
  std::int64_t output_tokens = 0;       // tokens
  std::int64_t cache_read_tokens = 0;   // tokens
  std::int64_t cache_write_tokens = 0;  // tokens
  double cost_usd = 0;                  // dollars (0: a local or unpriced model)
  double seconds = 0;                   // wall time, retries and continuations included
  std::int64_t attempts = 0;            // HTTP requests it took
  std::string transcript;               // its file, relative to the run directory
  friend bool operator==(const llm_call_record&, const llm_call_record&) = default;
};

/// A deployment begins (deployments row keyed by work_dir; writing it again leaves one row).
struct deployment_record {
  std::string work_dir;   // relative to the run directory
  std::string job;
  std::string champion;   // label: "iter-3/branch-2", or the --source file
  bool given = false;
  std::string project;    // absolute
  std::string file;       // relative to the project
  friend bool operator==(const deployment_record&, const deployment_record&) = default;
};

/// One finished step of the deployment at work_dir; (deployment, seq) unique, so a repeated
/// write replaces its row.
struct deploy_step_record {
  std::string work_dir;   // the deployment's key
  std::int64_t seq = 0;   // 1-based
  std::string step;       // deploy::deploy_step text
  std::string status;     // deploy::step_status text
  std::string detail;
  double seconds = 0;     // seconds
  std::int64_t attempt = 1;
  std::string log;        // relative to the run directory; "" for none
  friend bool operator==(const deploy_step_record&, const deploy_step_record&) = default;
};

/// How the deployment at work_dir ended, with its before/after timings (0 spread / median with
/// has_* false: not taken).
struct deployment_result {
  std::string work_dir;
  std::string outcome;    // deploy::deploy_outcome text
  std::string reason;
  bool has_before = false;
  double before_median = 0;
  double before_spread = 0;
  bool has_after = false;
  double after_median = 0;
  double after_spread = 0;
  std::string unit;       // the result_key, or "s"
  friend bool operator==(const deployment_result&, const deployment_result&) = default;
};

} // namespace warpforge::storage
