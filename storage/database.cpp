#include "storage/database.hpp"

#include "storage/migrations.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace warpforge::storage {
namespace {

/// Runs `body` and puts `step` in front of its error's message.
template <class Body>
auto named(std::string_view step, Body&& body) -> decltype(body()) {
  auto result = body();
  if (!result)
    return unexpected{with_context(std::move(result).error(), step)};
  return result;
}

template <class Enum>
expected<Enum, store_error> read_enum(const statement& stmt, int column, std::string_view where) {
  auto text = stmt.column_text(column);
  if (auto value = vocabulary::from_string<Enum>(text))
    return *value;
  return unexpected{store_error{store_error_code::corrupt,
                                std::string{where} + " holds '" + text +
                                    "', a value this binary does not know"}};
}

template <class Enum>
expected<std::optional<Enum>, store_error> read_optional_enum(const statement& stmt, int column,
                                                              std::string_view where) {
  if (stmt.column_is_null(column))
    return std::optional<Enum>{};
  auto value = read_enum<Enum>(stmt, column, where);
  if (!value)
    return unexpected{std::move(value).error()};
  return std::optional<Enum>{*value};
}

/// Steps `stmt` to the end, turning each row into a Row with `read`.
template <class Row, class Reader>
expected<std::vector<Row>, store_error> collect(statement& stmt, Reader read) {
  std::vector<Row> rows;
  for (;;) {
    auto step = stmt.step();
    if (!step)
      return unexpected{std::move(step).error()};
    if (*step == step_result::done)
      return rows;
    auto row = read(stmt);
    if (!row)
      return unexpected{std::move(row).error()};
    rows.push_back(std::move(*row));
  }
}

/// Reads exactly one row, not_found naming `what` when there is none.
template <class Row, class Reader>
expected<Row, store_error> only_row(statement& stmt, Reader read, const std::string& what) {
  auto step = stmt.step();
  if (!step)
    return unexpected{std::move(step).error()};
  if (*step == step_result::done)
    return unexpected{store_error{store_error_code::not_found, "no " + what}};
  return read(stmt);
}

expected<row_id, store_error> run_insert(connection& conn, statement& stmt) {
  if (auto r = stmt.run(); !r)
    return unexpected{r.error()};
  return conn.last_insert_rowid();
}

/// Runs an UPDATE of one row; not_found naming table and id when no row matched.
// The id of the one row `stmt` selects, when there is one.
expected<std::optional<row_id>, store_error> select_id(statement& stmt) {
  auto step = stmt.step();
  if (!step)
    return unexpected{std::move(step).error()};
  if (*step != step_result::row)
    return std::optional<row_id>{};
  return std::optional<row_id>{stmt.column_int64(0)};
}

expected<void, store_error> run_update(connection& conn, statement& stmt, std::string_view table,
                                       row_id id) {
  if (auto r = stmt.run(); !r)
    return r;
  if (conn.changes() == 0)
    return unexpected{store_error{store_error_code::not_found,
                                  "no row in " + std::string{table} + " with id " +
                                      std::to_string(id)}};
  return {};
}

std::string with_path(std::string_view step, const std::filesystem::path& path) {
  return std::string{step} + " " + path.string();
}

// --- row readers: the column lists and the functions that read them stay side by side ----------

constexpr std::string_view campaign_columns =
    "id, name, spec_path, spec_toml, run_dir, state, created_at, updated_at, finished_at, reason";

expected<campaign_row, store_error> read_campaign(const statement& s) {
  auto state = read_enum<vocabulary::campaign_state>(s, 5, "campaigns.state");
  if (!state)
    return unexpected{std::move(state).error()};
  return campaign_row{s.column_int64(0),  s.column_text(1),   s.column_text(2),
                      s.column_text(3),   s.column_text(4),   *state,
                      s.column_double(6), s.column_double(7), s.column_optional_double(8),
                      s.column_text(9)};
}

constexpr std::string_view job_columns =
    "id, campaign_id, name, problem_path, state, iterations_done, best_time_s, baseline_time_s, "
    "updated_at, reason";

expected<job_row, store_error> read_job(const statement& s) {
  auto state = read_enum<vocabulary::job_state>(s, 4, "jobs.state");
  if (!state)
    return unexpected{std::move(state).error()};
  return job_row{s.column_int64(0),           s.column_int64(1),           s.column_text(2),
                 s.column_text(3),            *state,                      s.column_int64(5),
                 s.column_optional_double(6), s.column_optional_double(7), s.column_double(8),
                 s.column_text(9)};
}

constexpr std::string_view iteration_columns =
    "id, job_id, number, state, champion_branch_id, started_at, finished_at, gaps_json";

expected<iteration_row, store_error> read_iteration(const statement& s) {
  auto state = read_enum<vocabulary::iteration_state>(s, 3, "iterations.state");
  if (!state)
    return unexpected{std::move(state).error()};
  return iteration_row{s.column_int64(0),          s.column_int64(1),
                       s.column_int64(2),          *state,
                       s.column_optional_int64(4), s.column_double(5),
                       s.column_optional_double(6), s.column_optional_text(7)};
}

constexpr std::string_view branch_columns =
    "id, iteration_id, ordinal, kind, parent_branch_id, outcome, methods_json, defines_json, "
    "source_path, detail, created_at, updated_at, duplicate_of_iteration, duplicate_of_ordinal";

expected<branch_row, store_error> read_branch(const statement& s) {
  auto kind = read_enum<vocabulary::branch_kind>(s, 3, "branches.kind");
  if (!kind)
    return unexpected{std::move(kind).error()};
  auto outcome = read_optional_enum<vocabulary::branch_outcome>(s, 5, "branches.outcome");
  if (!outcome)
    return unexpected{std::move(outcome).error()};
  return branch_row{s.column_int64(0),  s.column_int64(1),  s.column_int64(2),
                    *kind,              s.column_optional_int64(4), *outcome,
                    s.column_text(6),   s.column_text(7),   s.column_text(8),
                    s.column_text(9),   s.column_double(10), s.column_double(11),
                    s.column_optional_int64(12), s.column_optional_int64(13)};
}

constexpr std::string_view measurement_columns =
    "id, branch_id, gpu, gpu_name, mode, median_s, mean_s, stddev_s, cv, ci95_low_s, ci95_high_s, "
    "min_s, samples, sm_clock_mhz, created_at";

expected<measurement_row, store_error> read_measurement(const statement& s) {
  auto mode = read_enum<vocabulary::timing_mode>(s, 4, "measurements.mode");
  if (!mode)
    return unexpected{std::move(mode).error()};
  return measurement_row{s.column_int64(0),   s.column_int64(1),   s.column_int64(2),
                         s.column_text(3),    *mode,               s.column_double(5),
                         s.column_double(6),  s.column_double(7),  s.column_double(8),
                         s.column_double(9),  s.column_double(10), s.column_double(11),
                         s.column_int64(12),  s.column_optional_double(13),
                         s.column_double(14)};
}

constexpr std::string_view event_columns =
    "seq, ts, type, campaign, job, iter, branch, gpu, json";

expected<event_row, store_error> read_event(const statement& s) {
  return event_row{s.column_int64(0),          s.column_double(1),
                   s.column_text(2),           s.column_optional_text(3),
                   s.column_optional_text(4),  s.column_optional_int64(5),
                   s.column_optional_int64(6), s.column_optional_int64(7),
                   s.column_text(8)};
}

constexpr std::string_view artifact_columns =
    "id, kind, path, bytes, sha256, branch_id, created_at";

expected<artifact_row, store_error> read_artifact(const statement& s) {
  auto kind = read_enum<vocabulary::artifact_kind>(s, 1, "artifacts.kind");
  if (!kind)
    return unexpected{std::move(kind).error()};
  return artifact_row{s.column_int64(0),         *kind,
                      s.column_text(2),          s.column_int64(3),
                      s.column_optional_text(4), s.column_optional_int64(5),
                      s.column_double(6)};
}

constexpr std::string_view llm_call_columns =
    "id, job_id, iteration, seq, purpose, model, outcome, input_tokens, output_tokens, "
    "cache_read_tokens, cache_write_tokens, cost_usd, seconds, attempts, transcript, created_at";

expected<llm_call_row, store_error> read_llm_call(const statement& s) {
  return llm_call_row{s.column_int64(0),   s.column_int64(1),   s.column_int64(2),
                      s.column_int64(3),   s.column_text(4),    s.column_text(5),
                      s.column_text(6),    s.column_int64(7),   s.column_int64(8),
                      s.column_int64(9),   s.column_int64(10),  s.column_double(11),
                      s.column_double(12), s.column_int64(13),  s.column_text(14),
                      s.column_double(15)};
}

std::string select_from(std::string_view columns, std::string_view rest) {
  std::string sql{"SELECT "};
  sql += columns;
  sql += ' ';
  sql += rest;
  return sql;
}

/// An artifact path must stay inside the run directory.
std::optional<std::string> invalid_artifact_path(const std::string& text) {
  std::filesystem::path path{text};
  if (path.empty())
    return "the path is empty";
  if (path.is_absolute())
    return "'" + text + "' is absolute; give it relative to the run directory";
  for (const auto& part : path)
    if (part == "..")
      return "'" + text + "' leaves the run directory (..)";
  return std::nullopt;
}

/// Each job's llm_calls of the campaign, summed (jobs without a call are absent).
expected<std::map<row_id, llm_spend>, store_error> spend_by_job(connection& conn, row_id campaign_id) {
  auto stmt = conn.prepare(
      "SELECT c.job_id, count(*), sum(c.outcome <> 'ok'), sum(c.input_tokens), "
      "sum(c.output_tokens), sum(c.cache_read_tokens), sum(c.cache_write_tokens), "
      "sum(c.cost_usd), sum(c.seconds) FROM llm_calls c JOIN jobs j ON c.job_id = j.id "
      "WHERE j.campaign_id = ? GROUP BY c.job_id");
  if (!stmt)
    return unexpected{std::move(stmt).error()};
  stmt->bind(1, campaign_id);
  std::map<row_id, llm_spend> spend;
  for (;;) {
    auto step = stmt->step();
    if (!step)
      return unexpected{std::move(step).error()};
    if (*step == step_result::done)
      return spend;
    spend[stmt->column_int64(0)] =
        llm_spend{stmt->column_int64(1),  stmt->column_int64(2),  stmt->column_int64(3),
                  stmt->column_int64(4),  stmt->column_int64(5),  stmt->column_int64(6),
                  stmt->column_double(7), stmt->column_double(8)};
  }
}

constexpr std::string_view deployment_columns =
    "id, work_dir, job, champion, given, project, file, outcome, reason, before_median, "
    "before_spread, after_median, after_spread, unit, started_at, finished_at";

expected<deployment_row, store_error> read_deployment(const statement& s) {
  deployment_row r;
  r.id = s.column_int64(0);
  r.work_dir = s.column_text(1);
  r.job = s.column_text(2);
  r.champion = s.column_text(3);
  r.given = s.column_int64(4) != 0;
  r.project = s.column_text(5);
  r.file = s.column_text(6);
  r.outcome = s.column_text(7);
  r.reason = s.column_text(8);
  r.before_median = s.column_optional_double(9);
  r.before_spread = s.column_optional_double(10);
  r.after_median = s.column_optional_double(11);
  r.after_spread = s.column_optional_double(12);
  r.unit = s.column_text(13);
  r.started_at = s.column_double(14);
  r.finished_at = s.column_optional_double(15);
  return r;
}

constexpr std::string_view deploy_step_columns =
    "id, deployment_id, seq, step, status, detail, seconds, attempt, log, created_at";

expected<deploy_step_row, store_error> read_deploy_step(const statement& s) {
  return deploy_step_row{s.column_int64(0), s.column_int64(1),  s.column_int64(2),
                         s.column_text(3),  s.column_text(4),   s.column_text(5),
                         s.column_double(6), s.column_int64(7), s.column_text(8),
                         s.column_double(9)};
}

} // namespace

// --- opening -----------------------------------------------------------------------------------

expected<database, store_error> database::open(const std::filesystem::path& path,
                                               const open_options& options) {
  return named(with_path("open", path), [&]() -> expected<database, store_error> {
    auto conn = connection::open(path, open_mode::read_write_create);
    if (!conn)
      return unexpected{std::move(conn).error()};
    conn->set_busy_timeout(options.busy_timeout);
    // Refuse a newer schema before the pragmas below write anything.
    if (auto version = check_schema_version(*conn, all_migrations()); !version)
      return unexpected{std::move(version).error()};
    auto journal = conn->query_text("PRAGMA journal_mode = WAL");
    if (!journal)
      return unexpected{std::move(journal).error()};
    if (*journal != "wal")
      return unexpected{store_error{store_error_code::cannot_open,
                                    "WAL is unavailable on this file system (journal_mode stays '" +
                                        *journal + "')"}};
    if (auto r = conn->exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON"); !r)
      return unexpected{r.error()};
    if (auto r = migrate(*conn, all_migrations()); !r)
      return unexpected{std::move(r).error()};
    return database{std::move(*conn), false};
  });
}

expected<database, store_error> database::open_read_only(const std::filesystem::path& path,
                                                         const open_options& options) {
  return named(with_path("open_read_only", path), [&]() -> expected<database, store_error> {
    auto conn = connection::open(path, open_mode::read_only);
    if (!conn)
      return unexpected{std::move(conn).error()};
    conn->set_busy_timeout(options.busy_timeout);
    auto version = check_schema_version(*conn, all_migrations());
    if (!version)
      return unexpected{std::move(version).error()};
    const int latest = latest_version(all_migrations());
    if (*version == 0) // no schema at all: an empty or foreign file, not an old run database
      return unexpected{store_error{store_error_code::not_a_run_directory,
                                    "it holds no warpforge schema (an empty or foreign file): not a "
                                    "run database; a run directory's database is made by `warpforge run`"}};
    if (*version < latest)
      return unexpected{store_error{store_error_code::schema_too_old,
                                    "the database is at schema version " +
                                        std::to_string(*version) + ", this binary reads " +
                                        std::to_string(latest) +
                                        " (`warpforge resume` on its run directory migrates it)"}};
    return database{std::move(*conn), true};
  });
}

expected<int, store_error> database::schema_version() {
  return storage::schema_version(conn_);
}

expected<std::string, store_error> database::integrity_check() {
  return named("integrity_check", [&]() -> expected<std::string, store_error> {
    auto stmt = conn_.prepare("PRAGMA integrity_check");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    auto lines = collect<std::string>(
        *stmt, [](const statement& s) -> expected<std::string, store_error> {
          return s.column_text(0);
        });
    if (!lines)
      return unexpected{std::move(lines).error()};
    std::string report;
    for (const auto& line : *lines) {
      if (!report.empty())
        report += '\n';
      report += line;
    }
    return report;
  });
}

expected<transaction, store_error> database::begin_batch() {
  return named("begin_batch",
               [&] { return transaction::begin(conn_, transaction_mode::immediate); });
}

// --- campaigns ---------------------------------------------------------------------------------

expected<row_id, store_error> database::insert_campaign(const campaign_row& row) {
  return named("insert_campaign", [&]() -> expected<row_id, store_error> {
    auto stmt = conn_.prepare(
        "INSERT INTO campaigns (name, spec_path, spec_toml, run_dir, state, created_at, "
        "updated_at, finished_at, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, row.name)
        .bind(2, row.spec_path)
        .bind(3, row.spec_toml)
        .bind(4, row.run_dir)
        .bind(5, to_string(row.state))
        .bind(6, row.created_at)
        .bind(7, row.updated_at)
        .bind(8, row.finished_at)
        .bind(9, row.reason);
    return run_insert(conn_, *stmt);
  });
}

expected<void, store_error> database::set_campaign_state(row_id id, vocabulary::campaign_state state,
                                                         std::string_view reason,
                                                         unix_seconds now) {
  return named("set_campaign_state", [&]() -> expected<void, store_error> {
    auto stmt = conn_.prepare(
        "UPDATE campaigns SET state = ?, reason = ?, updated_at = ?, finished_at = ? "
        "WHERE id = ?");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    std::optional<unix_seconds> finished_at;
    if (is_terminal(state))
      finished_at = now;
    stmt->bind(1, to_string(state)).bind(2, reason).bind(3, now).bind(4, finished_at).bind(5, id);
    return run_update(conn_, *stmt, "campaigns", id);
  });
}

expected<campaign_row, store_error> database::load_campaign(row_id id) {
  return named("load_campaign", [&]() -> expected<campaign_row, store_error> {
    auto stmt = conn_.prepare(select_from(campaign_columns, "FROM campaigns WHERE id = ?"));
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, id);
    return only_row<campaign_row>(*stmt, read_campaign, "campaign with id " + std::to_string(id));
  });
}

// --- jobs --------------------------------------------------------------------------------------

expected<row_id, store_error> database::insert_job(const job_row& row) {
  return named("insert_job", [&]() -> expected<row_id, store_error> {
    auto stmt = conn_.prepare(
        "INSERT INTO jobs (campaign_id, name, problem_path, state, iterations_done, best_time_s, "
        "baseline_time_s, updated_at, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, row.campaign_id)
        .bind(2, row.name)
        .bind(3, row.problem_path)
        .bind(4, to_string(row.state))
        .bind(5, row.iterations_done)
        .bind(6, row.best_time_s)
        .bind(7, row.baseline_time_s)
        .bind(8, row.updated_at)
        .bind(9, row.reason);
    return run_insert(conn_, *stmt);
  });
}

expected<void, store_error> database::set_job_state(row_id id, vocabulary::job_state state,
                                                    std::string_view reason, unix_seconds now) {
  return named("set_job_state", [&]() -> expected<void, store_error> {
    auto stmt =
        conn_.prepare("UPDATE jobs SET state = ?, reason = ?, updated_at = ? WHERE id = ?");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, to_string(state)).bind(2, reason).bind(3, now).bind(4, id);
    return run_update(conn_, *stmt, "jobs", id);
  });
}

expected<void, store_error> database::update_job(const job_row& row) {
  return named("update_job", [&]() -> expected<void, store_error> {
    auto stmt = conn_.prepare(
        "UPDATE jobs SET state = ?, iterations_done = ?, best_time_s = ?, baseline_time_s = ?, "
        "updated_at = ?, reason = ? WHERE id = ?");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, to_string(row.state))
        .bind(2, row.iterations_done)
        .bind(3, row.best_time_s)
        .bind(4, row.baseline_time_s)
        .bind(5, row.updated_at)
        .bind(6, row.reason)
        .bind(7, row.id);
    return run_update(conn_, *stmt, "jobs", row.id);
  });
}

expected<void, store_error> database::set_job_progress(row_id id, std::int64_t iterations_done,
                                                      std::optional<double> best_time_s,
                                                      std::optional<double> baseline_time_s,
                                                      unix_seconds now) {
  return named("set_job_progress", [&]() -> expected<void, store_error> {
    auto stmt = conn_.prepare(
        "UPDATE jobs SET iterations_done = ?, best_time_s = COALESCE(?, best_time_s), "
        "baseline_time_s = COALESCE(?, baseline_time_s), updated_at = ? WHERE id = ?");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, iterations_done).bind(2, best_time_s).bind(3, baseline_time_s).bind(4, now).bind(5, id);
    return run_update(conn_, *stmt, "jobs", id);
  });
}

expected<std::vector<job_row>, store_error> database::load_jobs(row_id campaign_id) {
  return named("load_jobs", [&]() -> expected<std::vector<job_row>, store_error> {
    auto stmt =
        conn_.prepare(select_from(job_columns, "FROM jobs WHERE campaign_id = ? ORDER BY id"));
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, campaign_id);
    return collect<job_row>(*stmt, read_job);
  });
}

// --- iterations --------------------------------------------------------------------------------

expected<row_id, store_error> database::insert_iteration(const iteration_row& row) {
  return named("insert_iteration", [&]() -> expected<row_id, store_error> {
    auto stmt = conn_.prepare(
        "INSERT INTO iterations (job_id, number, state, champion_branch_id, started_at, "
        "finished_at, gaps_json) VALUES (?, ?, ?, ?, ?, ?, ?)");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, row.job_id)
        .bind(2, row.number)
        .bind(3, to_string(row.state))
        .bind(4, row.champion_branch_id)
        .bind(5, row.started_at)
        .bind(6, row.finished_at)
        .bind(7, row.gaps_json);
    return run_insert(conn_, *stmt);
  });
}

expected<void, store_error> database::update_iteration(const iteration_row& row) {
  return named("update_iteration", [&]() -> expected<void, store_error> {
    auto stmt = conn_.prepare(
        "UPDATE iterations SET state = ?, champion_branch_id = ?, finished_at = ?, gaps_json = ? "
        "WHERE id = ?");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, to_string(row.state))
        .bind(2, row.champion_branch_id)
        .bind(3, row.finished_at)
        .bind(4, row.gaps_json)
        .bind(5, row.id);
    return run_update(conn_, *stmt, "iterations", row.id);
  });
}

expected<std::vector<iteration_row>, store_error> database::load_iterations(row_id job_id) {
  return named("load_iterations", [&]() -> expected<std::vector<iteration_row>, store_error> {
    auto stmt = conn_.prepare(
        select_from(iteration_columns, "FROM iterations WHERE job_id = ? ORDER BY number"));
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, job_id);
    return collect<iteration_row>(*stmt, read_iteration);
  });
}

expected<std::optional<row_id>, store_error> database::find_iteration(row_id job_id, std::int64_t number) {
  return named("find_iteration", [&]() -> expected<std::optional<row_id>, store_error> {
    auto stmt = conn_.prepare("SELECT id FROM iterations WHERE job_id = ? AND number = ?");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, job_id).bind(2, number);
    return select_id(*stmt);
  });
}

// --- branches ----------------------------------------------------------------------------------

expected<std::optional<row_id>, store_error> database::find_branch(row_id iteration_id, std::int64_t ordinal) {
  return named("find_branch", [&]() -> expected<std::optional<row_id>, store_error> {
    auto stmt = conn_.prepare("SELECT id FROM branches WHERE iteration_id = ? AND ordinal = ?");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, iteration_id).bind(2, ordinal);
    return select_id(*stmt);
  });
}

expected<row_id, store_error> database::insert_branch(const branch_row& row) {
  return named("insert_branch", [&]() -> expected<row_id, store_error> {
    auto stmt = conn_.prepare(
        "INSERT INTO branches (iteration_id, ordinal, kind, parent_branch_id, outcome, "
        "methods_json, defines_json, source_path, detail, created_at, updated_at, "
        "duplicate_of_iteration, duplicate_of_ordinal) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    std::optional<std::string_view> outcome;
    if (row.outcome)
      outcome = to_string(*row.outcome);
    stmt->bind(1, row.iteration_id)
        .bind(2, row.ordinal)
        .bind(3, to_string(row.kind))
        .bind(4, row.parent_branch_id)
        .bind(5, outcome)
        .bind(6, row.methods_json)
        .bind(7, row.defines_json)
        .bind(8, row.source_path)
        .bind(9, row.detail)
        .bind(10, row.created_at)
        .bind(11, row.updated_at)
        .bind(12, row.duplicate_of_iteration)
        .bind(13, row.duplicate_of_ordinal);
    return run_insert(conn_, *stmt);
  });
}

expected<void, store_error> database::set_branch_outcome(row_id id, vocabulary::branch_outcome outcome,
                                                         std::string_view detail,
                                                         unix_seconds now) {
  return named("set_branch_outcome", [&]() -> expected<void, store_error> {
    auto stmt =
        conn_.prepare("UPDATE branches SET outcome = ?, detail = ?, updated_at = ? WHERE id = ?");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, to_string(outcome)).bind(2, detail).bind(3, now).bind(4, id);
    return run_update(conn_, *stmt, "branches", id);
  });
}

expected<std::vector<branch_row>, store_error> database::load_branches(row_id iteration_id) {
  return named("load_branches", [&]() -> expected<std::vector<branch_row>, store_error> {
    auto stmt = conn_.prepare(
        select_from(branch_columns, "FROM branches WHERE iteration_id = ? ORDER BY ordinal"));
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, iteration_id);
    return collect<branch_row>(*stmt, read_branch);
  });
}

// --- measurements ------------------------------------------------------------------------------

expected<row_id, store_error> database::insert_measurement(const measurement_row& row) {
  return named("insert_measurement", [&]() -> expected<row_id, store_error> {
    auto stmt = conn_.prepare(
        "INSERT INTO measurements (branch_id, gpu, gpu_name, mode, median_s, mean_s, stddev_s, "
        "cv, ci95_low_s, ci95_high_s, min_s, samples, sm_clock_mhz, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, row.branch_id)
        .bind(2, row.gpu)
        .bind(3, row.gpu_name)
        .bind(4, to_string(row.mode))
        .bind(5, row.median_s)
        .bind(6, row.mean_s)
        .bind(7, row.stddev_s)
        .bind(8, row.cv)
        .bind(9, row.ci95_low_s)
        .bind(10, row.ci95_high_s)
        .bind(11, row.min_s)
        .bind(12, row.samples)
        .bind(13, row.sm_clock_mhz)
        .bind(14, row.created_at);
    return run_insert(conn_, *stmt);
  });
}

expected<std::optional<row_id>, store_error> database::find_measurement(row_id branch_id, std::int64_t gpu,
                                                                        vocabulary::timing_mode mode) {
  return named("find_measurement", [&]() -> expected<std::optional<row_id>, store_error> {
    auto stmt = conn_.prepare("SELECT id FROM measurements WHERE branch_id = ? AND gpu = ? AND mode = ?");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, branch_id).bind(2, gpu).bind(3, vocabulary::to_string(mode));
    return select_id(*stmt);
  });
}

expected<void, store_error> database::update_measurement(const measurement_row& row) {
  return named("update_measurement", [&]() -> expected<void, store_error> {
    auto stmt = conn_.prepare(
        "UPDATE measurements SET gpu_name = ?, median_s = ?, mean_s = ?, stddev_s = ?, cv = ?, "
        "ci95_low_s = ?, ci95_high_s = ?, min_s = ?, samples = ?, sm_clock_mhz = ?, created_at = ? "
        "WHERE id = ?");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, row.gpu_name)
        .bind(2, row.median_s)
        .bind(3, row.mean_s)
        .bind(4, row.stddev_s)
        .bind(5, row.cv)
        .bind(6, row.ci95_low_s)
        .bind(7, row.ci95_high_s)
        .bind(8, row.min_s)
        .bind(9, row.samples)
        .bind(10, row.sm_clock_mhz)
        .bind(11, row.created_at)
        .bind(12, row.id);
    return run_update(conn_, *stmt, "measurements", row.id);
  });
}

expected<std::vector<measurement_row>, store_error> database::load_measurements(row_id branch_id) {
  return named("load_measurements", [&]() -> expected<std::vector<measurement_row>, store_error> {
    auto stmt = conn_.prepare(
        select_from(measurement_columns, "FROM measurements WHERE branch_id = ? ORDER BY id"));
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, branch_id);
    return collect<measurement_row>(*stmt, read_measurement);
  });
}

// --- events ------------------------------------------------------------------------------------

expected<std::int64_t, store_error> database::append_event(const event_row& row) {
  return named("append_event", [&]() -> expected<std::int64_t, store_error> {
    if (row.seq < 1)
      return unexpected{store_error{store_error_code::invalid_argument,
                                    "seq " + std::to_string(row.seq) + " is below 1"}};
    // The WHERE keeps seq strictly increasing in the same statement that inserts.
    auto stmt = conn_.prepare(
        "INSERT INTO events (seq, ts, type, campaign, job, iter, branch, gpu, json) "
        "SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9 "
        "WHERE ?1 > (SELECT coalesce(max(seq), 0) FROM events)");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, row.seq)
        .bind(2, row.ts)
        .bind(3, row.type)
        .bind(4, row.campaign)
        .bind(5, row.job)
        .bind(6, row.iter)
        .bind(7, row.branch)
        .bind(8, row.gpu)
        .bind(9, row.json);
    if (auto r = stmt->run(); !r)
      return unexpected{r.error()};
    if (conn_.changes() == 0) {
      auto next = conn_.query_int64("SELECT coalesce(max(seq), 0) FROM events");
      return unexpected{store_error{
          store_error_code::constraint,
          "seq " + std::to_string(row.seq) + " is not after the last stored seq " +
              (next ? std::to_string(*next) : std::string{"(unreadable)"})}};
    }
    return row.seq;
  });
}

expected<std::int64_t, store_error> database::next_event_seq() {
  return named("next_event_seq",
               [&] { return conn_.query_int64("SELECT coalesce(max(seq), 0) + 1 FROM events"); });
}

expected<std::vector<event_row>, store_error> database::events_since(std::int64_t after_seq,
                                                                     std::int64_t limit) {
  return named("events_since", [&]() -> expected<std::vector<event_row>, store_error> {
    if (limit < 1)
      return unexpected{store_error{store_error_code::invalid_argument,
                                    "limit " + std::to_string(limit) + " is below 1"}};
    auto stmt = conn_.prepare(
        select_from(event_columns, "FROM events WHERE seq > ? ORDER BY seq LIMIT ?"));
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, after_seq).bind(2, limit);
    return collect<event_row>(*stmt, read_event);
  });
}

// --- artifacts ---------------------------------------------------------------------------------

expected<row_id, store_error> database::insert_artifact(const artifact_row& row) {
  return named("insert_artifact", [&]() -> expected<row_id, store_error> {
    if (auto problem = invalid_artifact_path(row.path))
      return unexpected{store_error{store_error_code::invalid_argument, *problem}};
    auto stmt = conn_.prepare(
        "INSERT INTO artifacts (kind, path, bytes, sha256, branch_id, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (path) DO UPDATE SET kind = excluded.kind, bytes = excluded.bytes, "
        "sha256 = excluded.sha256, branch_id = excluded.branch_id, "
        "created_at = excluded.created_at "
        "RETURNING id");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, to_string(row.kind))
        .bind(2, row.path)
        .bind(3, row.bytes)
        .bind(4, row.sha256)
        .bind(5, row.branch_id)
        .bind(6, row.created_at);
    auto read_id = [](const statement& s) -> expected<row_id, store_error> {
      return s.column_int64(0);
    };
    auto id = only_row<row_id>(*stmt, read_id, "id returned");
    if (!id)
      return id;
    if (auto r = stmt->run(); !r) // step past RETURNING's row so the statement completes
      return unexpected{r.error()};
    return id;
  });
}

expected<std::vector<artifact_row>, store_error> database::load_artifacts() {
  return named("load_artifacts", [&]() -> expected<std::vector<artifact_row>, store_error> {
    auto stmt = conn_.prepare(select_from(artifact_columns, "FROM artifacts ORDER BY id"));
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    return collect<artifact_row>(*stmt, read_artifact);
  });
}

// --- llm_calls ---------------------------------------------------------------------------------

expected<row_id, store_error> database::insert_llm_call(const llm_call_row& row) {
  return named("insert_llm_call", [&]() -> expected<row_id, store_error> {
    auto stmt = conn_.prepare(
        "INSERT INTO llm_calls (job_id, iteration, seq, purpose, model, outcome, input_tokens, "
        "output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, seconds, attempts, "
        "transcript, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (job_id, iteration, seq) DO UPDATE SET purpose = excluded.purpose, "
        "model = excluded.model, outcome = excluded.outcome, input_tokens = excluded.input_tokens, "
        "output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens, "
        "cache_write_tokens = excluded.cache_write_tokens, cost_usd = excluded.cost_usd, "
        "seconds = excluded.seconds, attempts = excluded.attempts, "
        "transcript = excluded.transcript, created_at = excluded.created_at "
        "RETURNING id");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, row.job_id)
        .bind(2, row.iteration)
        .bind(3, row.seq)
        .bind(4, row.purpose)
        .bind(5, row.model)
        .bind(6, row.outcome)
        .bind(7, row.input_tokens)
        .bind(8, row.output_tokens)
        .bind(9, row.cache_read_tokens)
        .bind(10, row.cache_write_tokens)
        .bind(11, row.cost_usd)
        .bind(12, row.seconds)
        .bind(13, row.attempts)
        .bind(14, row.transcript)
        .bind(15, row.created_at);
    auto read_id = [](const statement& s) -> expected<row_id, store_error> {
      return s.column_int64(0);
    };
    auto id = only_row<row_id>(*stmt, read_id, "id returned");
    if (!id)
      return id;
    if (auto r = stmt->run(); !r) // step past RETURNING's row so the statement completes
      return unexpected{r.error()};
    return id;
  });
}

expected<std::vector<llm_call_row>, store_error> database::load_llm_calls(row_id job_id) {
  return named("load_llm_calls", [&]() -> expected<std::vector<llm_call_row>, store_error> {
    auto stmt = conn_.prepare(select_from(
        llm_call_columns, "FROM llm_calls WHERE job_id = ? ORDER BY iteration, seq"));
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, job_id);
    return collect<llm_call_row>(*stmt, read_llm_call);
  });
}

// --- deployments -------------------------------------------------------------------------------

expected<row_id, store_error> database::record_deployment(const deployment_record& record,
                                                          unix_seconds now) {
  return named("record_deployment", [&]() -> expected<row_id, store_error> {
    auto stmt = conn_.prepare(
        "INSERT INTO deployments (work_dir, job, champion, given, project, file, started_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (work_dir) DO UPDATE SET job = excluded.job "
        "RETURNING id");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, record.work_dir)
        .bind(2, record.job)
        .bind(3, record.champion)
        .bind(4, record.given ? 1 : 0)
        .bind(5, record.project)
        .bind(6, record.file)
        .bind(7, now);
    auto id = only_row<row_id>(*stmt, [](const statement& s) -> expected<row_id, store_error> {
      return s.column_int64(0);
    }, "id returned");
    if (!id)
      return id;
    if (auto r = stmt->run(); !r)
      return unexpected{r.error()};
    return id;
  });
}

expected<row_id, store_error> database::record_deploy_step(const deploy_step_record& record,
                                                           unix_seconds now) {
  return named("record_deploy_step", [&]() -> expected<row_id, store_error> {
    auto stmt = conn_.prepare(
        "INSERT INTO deploy_steps (deployment_id, seq, step, status, detail, seconds, attempt, "
        "log, created_at) SELECT id, ?, ?, ?, ?, ?, ?, ?, ? FROM deployments WHERE work_dir = ? "
        "ON CONFLICT (deployment_id, seq) DO UPDATE SET step = excluded.step, "
        "status = excluded.status, detail = excluded.detail, seconds = excluded.seconds, "
        "attempt = excluded.attempt, log = excluded.log, created_at = excluded.created_at "
        "RETURNING id");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, record.seq)
        .bind(2, record.step)
        .bind(3, record.status)
        .bind(4, record.detail)
        .bind(5, record.seconds)
        .bind(6, record.attempt)
        .bind(7, record.log)
        .bind(8, now)
        .bind(9, record.work_dir);
    auto id = only_row<row_id>(*stmt, [](const statement& s) -> expected<row_id, store_error> {
      return s.column_int64(0);
    }, "deployment with work_dir '" + record.work_dir + "'");
    if (!id)
      return id;
    if (auto r = stmt->run(); !r)
      return unexpected{r.error()};
    return id;
  });
}

expected<void, store_error> database::finish_deployment(const deployment_result& result,
                                                        unix_seconds now) {
  return named("finish_deployment", [&]() -> expected<void, store_error> {
    auto stmt = conn_.prepare(
        "UPDATE deployments SET outcome = ?, reason = ?, before_median = ?, before_spread = ?, "
        "after_median = ?, after_spread = ?, unit = ?, finished_at = ? WHERE work_dir = ?");
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    auto optional = [](bool has, double v) { return has ? std::optional<double>{v} : std::nullopt; };
    stmt->bind(1, result.outcome)
        .bind(2, result.reason)
        .bind(3, optional(result.has_before, result.before_median))
        .bind(4, optional(result.has_before, result.before_spread))
        .bind(5, optional(result.has_after, result.after_median))
        .bind(6, optional(result.has_after, result.after_spread))
        .bind(7, result.unit)
        .bind(8, now)
        .bind(9, result.work_dir);
    if (auto r = stmt->run(); !r)
      return r;
    if (conn_.changes() == 0)
      return unexpected{store_error{store_error_code::not_found,
                                    "no deployment with work_dir '" + result.work_dir + "'"}};
    return {};
  });
}

expected<std::vector<deployment_row>, store_error> database::load_deployments() {
  return named("load_deployments", [&]() -> expected<std::vector<deployment_row>, store_error> {
    auto stmt = conn_.prepare(select_from(deployment_columns, "FROM deployments ORDER BY id"));
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    return collect<deployment_row>(*stmt, read_deployment);
  });
}

expected<std::vector<deploy_step_row>, store_error> database::load_deploy_steps(row_id deployment_id) {
  return named("load_deploy_steps", [&]() -> expected<std::vector<deploy_step_row>, store_error> {
    auto stmt = conn_.prepare(select_from(
        deploy_step_columns, "FROM deploy_steps WHERE deployment_id = ? ORDER BY seq"));
    if (!stmt)
      return unexpected{std::move(stmt).error()};
    stmt->bind(1, deployment_id);
    return collect<deploy_step_row>(*stmt, read_deploy_step);
  });
}

// --- status ------------------------------------------------------------------------------------

expected<campaign_summary, store_error> database::load_campaign_summary() {
  return named("load_campaign_summary", [&]() -> expected<campaign_summary, store_error> {
    // One snapshot for every query below, unless the caller's batch already is one. A read
    // transaction has nothing to commit: the guard's rollback simply ends it.
    std::optional<transaction> snapshot;
    if (!conn_.in_transaction()) {
      auto tx = transaction::begin(conn_, transaction_mode::deferred);
      if (!tx)
        return unexpected{std::move(tx).error()};
      snapshot.emplace(std::move(*tx));
    }
    auto latest = conn_.query_int64("SELECT id FROM campaigns ORDER BY id DESC LIMIT 1");
    if (!latest) {
      if (latest.error().code == store_error_code::not_found)
        return unexpected{store_error{store_error_code::not_found, "no campaign in the database"}};
      return unexpected{std::move(latest).error()};
    }
    return summarize(*latest);
  });
}

expected<campaign_summary, store_error> database::load_campaign_summary(row_id campaign_id) {
  return named("load_campaign_summary", [&]() -> expected<campaign_summary, store_error> {
    std::optional<transaction> snapshot;
    if (!conn_.in_transaction()) {
      auto tx = transaction::begin(conn_, transaction_mode::deferred);
      if (!tx)
        return unexpected{std::move(tx).error()};
      snapshot.emplace(std::move(*tx));
    }
    return summarize(campaign_id);
  });
}

expected<campaign_summary, store_error> database::summarize(row_id campaign_id) {
  campaign_summary summary;
  auto campaign = load_campaign(campaign_id);
  if (!campaign)
    return unexpected{std::move(campaign).error()};
  summary.campaign = std::move(*campaign);

  auto jobs = load_jobs(campaign_id);
  if (!jobs)
    return unexpected{std::move(jobs).error()};
  summary.jobs = std::move(*jobs);

  for (auto outcome : vocabulary::all_branch_outcomes)
    summary.branch_outcomes[outcome] = 0;
  auto counts = conn_.prepare(
      "SELECT b.outcome, count(*) FROM branches b "
      "JOIN iterations i ON b.iteration_id = i.id JOIN jobs j ON i.job_id = j.id "
      "WHERE j.campaign_id = ? GROUP BY b.outcome");
  if (!counts)
    return unexpected{std::move(counts).error()};
  counts->bind(1, campaign_id);
  for (;;) {
    auto step = counts->step();
    if (!step)
      return unexpected{std::move(step).error()};
    if (*step == step_result::done)
      break;
    auto outcome = read_optional_enum<vocabulary::branch_outcome>(*counts, 0, "branches.outcome");
    if (!outcome)
      return unexpected{std::move(outcome).error()};
    if (*outcome)
      summary.branch_outcomes[**outcome] = counts->column_int64(1);
    else
      summary.branches_pending = counts->column_int64(1);
  }

  auto spend = spend_by_job(conn_, campaign_id);
  if (!spend)
    return unexpected{std::move(spend).error()};
  summary.llm_by_job = std::move(*spend);

  auto last = conn_.prepare("SELECT seq, ts FROM events ORDER BY seq DESC LIMIT 1");
  if (!last)
    return unexpected{std::move(last).error()};
  auto step = last->step();
  if (!step)
    return unexpected{std::move(step).error()};
  if (*step == step_result::row) {
    summary.last_event_seq = last->column_int64(0);
    summary.last_event_ts = last->column_double(1);
  }
  return summary;
}

} // namespace warpforge::storage
