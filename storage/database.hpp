#pragma once
// The run database (`<run dir>/warpforge.db`): typed reads and writes over the schema of
// migrations.cpp, documented in docs/run-directory.md. Each table's columns are described once,
// with its methods below, in storage/tables/<table>.cpp (table.hpp, query.hpp).
//
// One writer, many readers. The store actor is the only writer: it opens with open(), which
// creates the file, switches it to WAL, and migrates it. `warpforge status` and `warpforge tail`
// open it with open_read_only() from other processes while the writer runs; each read sees the
// last committed state. Group writes with begin_batch() so many rows cost one commit:
//
//   auto db = database::open(run.database_path());
//   auto batch = db->begin_batch();
//   db->append_event(ev);  db->set_branch_outcome(id, vocabulary::branch_outcome::passed, "", now);
//   batch->commit();            // or return early: the batch rolls back, nothing is written
//
// Crash safety: a committed write survives the writer being killed (SIGKILL) at any point; the
// write in flight is entirely there or entirely absent. (synchronous=NORMAL: only a power loss or
// an OS crash can lose the last commits, never the database's consistency.)
//
// Errors name the method ("insert_job: UNIQUE constraint failed: jobs.campaign_id, jobs.name
// [INSERT ...]"). Methods are not thread-safe: one thread (the actor) uses one database.

#include "foundation/expected/expected.hpp"
#include "storage/records.hpp"
#include "storage/rows.hpp"
#include "storage/sqlite.hpp"
#include "storage/store_error.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::storage {

/// How long a call waits for a lock held by another connection before failing with busy. Long
/// enough to ride out a checkpoint or a reader's snapshot, short enough to surface a stuck peer.
inline constexpr std::chrono::milliseconds default_busy_timeout{5000};

struct open_options {
  std::chrono::milliseconds busy_timeout = default_busy_timeout;
};

class database {
public:
  /// Opens or creates the writer's database: WAL, synchronous=NORMAL, foreign_keys=ON,
  /// busy_timeout, then migrates to this binary's schema. A database written by a newer binary
  /// is refused with schema_too_new before anything is written to it.
  static expected<database, store_error> open(const std::filesystem::path& path,
                                              const open_options& options = {});
  /// Opens an existing database for reading; never creates or migrates. cannot_open if the file
  /// is missing; schema_too_old / schema_too_new unless it is at this binary's version.
  static expected<database, store_error> open_read_only(const std::filesystem::path& path,
                                                        const open_options& options = {});

  const std::filesystem::path& path() const { return conn_.path(); }
  bool read_only() const { return read_only_; }
  expected<int, store_error> schema_version();
  /// SQLite's `PRAGMA integrity_check`: "ok" when healthy, else its findings.
  expected<std::string, store_error> integrity_check();

  /// Starts a write transaction (BEGIN IMMEDIATE) grouping the calls that follow until commit().
  /// Without a batch, every write commits on its own.
  expected<transaction, store_error> begin_batch();

  // campaigns ------------------------------------------------------------------------------------
  /// Returns the new id; row.id is ignored.
  expected<row_id, store_error> insert_campaign(const campaign_row& row);
  /// Sets state, reason and updated_at; finished_at = now for a terminal state, else cleared.
  expected<void, store_error> set_campaign_state(row_id id, vocabulary::campaign_state state,
                                                 std::string_view reason, unix_seconds now);
  expected<campaign_row, store_error> load_campaign(row_id id);

  // jobs -----------------------------------------------------------------------------------------
  expected<row_id, store_error> insert_job(const job_row& row);
  /// Sets state, reason and updated_at, leaving the progress columns as they are.
  expected<void, store_error> set_job_state(row_id id, vocabulary::job_state state, std::string_view reason,
                                            unix_seconds now);
  /// Writes the mutable fields of row.id: state, iterations_done, best_time_s, baseline_time_s,
  /// updated_at, reason (campaign_id, name and problem_path never change).
  expected<void, store_error> update_job(const job_row& row);
  /// Sets iterations_done, best_time_s, baseline_time_s (each when given) and updated_at,
  /// leaving state and reason as they are.
  expected<void, store_error> set_job_progress(row_id id, std::int64_t iterations_done,
                                               std::optional<double> best_time_s,
                                               std::optional<double> baseline_time_s,
                                               unix_seconds now);
  /// The campaign's jobs in insertion order.
  expected<std::vector<job_row>, store_error> load_jobs(row_id campaign_id);

  // iterations -----------------------------------------------------------------------------------
  expected<row_id, store_error> insert_iteration(const iteration_row& row);
  /// Writes the mutable fields of row.id: state, champion_branch_id, finished_at, gaps_json.
  expected<void, store_error> update_iteration(const iteration_row& row);
  /// The job's iterations by number.
  expected<std::vector<iteration_row>, store_error> load_iterations(row_id job_id);
  /// The row of the job's iteration `number`, when there is one.
  expected<std::optional<row_id>, store_error> find_iteration(row_id job_id, std::int64_t number);

  // branches -------------------------------------------------------------------------------------
  expected<row_id, store_error> insert_branch(const branch_row& row);
  expected<void, store_error> set_branch_outcome(row_id id, vocabulary::branch_outcome outcome,
                                                 std::string_view detail, unix_seconds now);
  /// The iteration's branches by ordinal.
  expected<std::vector<branch_row>, store_error> load_branches(row_id iteration_id);
  /// The row of the iteration's branch `ordinal`, when there is one.
  expected<std::optional<row_id>, store_error> find_branch(row_id iteration_id, std::int64_t ordinal);

  // measurements ---------------------------------------------------------------------------------
  expected<row_id, store_error> insert_measurement(const measurement_row& row);
  /// The branch's measurements in insertion order.
  expected<std::vector<measurement_row>, store_error> load_measurements(row_id branch_id);
  /// The branch's measurement on `gpu` in `mode`, when there is one.
  expected<std::optional<row_id>, store_error> find_measurement(row_id branch_id, std::int64_t gpu,
                                                                vocabulary::timing_mode mode);
  /// Writes every column of row.id but branch_id, gpu and mode.
  expected<void, store_error> update_measurement(const measurement_row& row);

  // events ---------------------------------------------------------------------------------------
  /// Persists an event under the seq the feed gave it and returns that seq. The seq must be
  /// greater than every stored one (constraint otherwise), so `WHERE seq > ?` replays in order.
  expected<std::int64_t, store_error> append_event(const event_row& row);
  /// max(seq) + 1, or 1 for no events: where the feed's counter resumes after a restart.
  expected<std::int64_t, store_error> next_event_seq();
  /// Up to `limit` (>= 1) events with seq > after_seq, in seq order; page on with the last seq.
  expected<std::vector<event_row>, store_error> events_since(std::int64_t after_seq,
                                                             std::int64_t limit);

  // artifacts ------------------------------------------------------------------------------------
  /// Records a file of the run directory (path relative to it; invalid_argument for an absolute
  /// path or one with ".."). Recording the same path again replaces its row (a file rewritten on
  /// resume) and returns the same id.
  expected<row_id, store_error> insert_artifact(const artifact_row& row);
  /// Every artifact in insertion order.
  expected<std::vector<artifact_row>, store_error> load_artifacts();

  // llm_calls ------------------------------------------------------------------------------------
  /// Records one model call; writing the same (job_id, iteration, seq) again replaces that row
  /// and returns the same id.
  expected<row_id, store_error> insert_llm_call(const llm_call_row& row);
  /// The job's model calls by iteration, then seq.
  expected<std::vector<llm_call_row>, store_error> load_llm_calls(row_id job_id);

  // deployments (migration 3) ----------------------------------------------------------------
  /// Records a deployment's start; the same work_dir again keeps its row (and started_at) and
  /// returns its id.
  expected<row_id, store_error> record_deployment(const deployment_record& record, unix_seconds now);
  /// Records a finished step of the deployment at record.work_dir (not_found when it has no row);
  /// the same seq again replaces that step.
  expected<row_id, store_error> record_deploy_step(const deploy_step_record& record, unix_seconds now);
  /// Sets the outcome, reason, timings and finished_at of the deployment at result.work_dir.
  expected<void, store_error> finish_deployment(const deployment_result& result, unix_seconds now);
  /// Every deployment, oldest first.
  expected<std::vector<deployment_row>, store_error> load_deployments();
  /// The deployment's steps by seq.
  expected<std::vector<deploy_step_row>, store_error> load_deploy_steps(row_id deployment_id);

  // status ---------------------------------------------------------------------------------------
  /// The summary of the most recent campaign (not_found when there is none), read in one
  /// snapshot.
  expected<campaign_summary, store_error> load_campaign_summary();
  expected<campaign_summary, store_error> load_campaign_summary(row_id campaign_id);

  /// The underlying connection, for diagnostics and tests; writes through it bypass the types.
  connection& raw() { return conn_; }

private:
  database(connection conn, bool read_only) : conn_(std::move(conn)), read_only_(read_only) {}

  // The pieces of a campaign summary (campaign_summary.cpp) and of a deploy step.
  expected<campaign_summary, store_error> summarize(row_id campaign_id);
  /// A read transaction for a consistent summary; none when the caller's batch is one already.
  expected<std::optional<transaction>, store_error> read_snapshot();
  /// The newest campaign's id; none in an empty database.
  expected<std::optional<row_id>, store_error> latest_campaign();
  /// Each job's llm_calls of the campaign, summed (jobs without a call are absent).
  expected<std::map<row_id, llm_spend>, store_error> llm_spend_by_job(row_id campaign_id);
  /// The event with the highest seq; none before the first.
  expected<std::optional<event_row>, store_error> last_event();
  /// The id of the deployment at `work_dir`, when there is one.
  expected<std::optional<row_id>, store_error> find_deployment(std::string_view work_dir);

  connection conn_;
  bool read_only_ = false;
};

} // namespace warpforge::storage
