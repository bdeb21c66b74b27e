#include "storage/migrations.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace warpforge::storage {
namespace {

// Version 1: the whole schema of docs/run-directory.md. Times are unix seconds (REAL); enum
// columns hold the text of the foundation/vocabulary/ enums; JSON columns are checked with json_valid.
constexpr std::string_view schema_v1 = R"sql(
CREATE TABLE schema_migrations (
  version    INTEGER PRIMARY KEY,
  applied_at REAL NOT NULL
);

CREATE TABLE campaigns (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  spec_path   TEXT NOT NULL,
  spec_toml   TEXT NOT NULL,
  run_dir     TEXT NOT NULL,
  state       TEXT NOT NULL,
  created_at  REAL NOT NULL,
  updated_at  REAL NOT NULL,
  finished_at REAL,
  reason      TEXT NOT NULL DEFAULT ''
);

CREATE TABLE jobs (
  id              INTEGER PRIMARY KEY,
  campaign_id     INTEGER NOT NULL REFERENCES campaigns(id),
  name            TEXT NOT NULL,
  problem_path    TEXT NOT NULL,
  state           TEXT NOT NULL,
  iterations_done INTEGER NOT NULL DEFAULT 0,
  best_time_s     REAL,
  baseline_time_s REAL,
  updated_at      REAL NOT NULL,
  reason          TEXT NOT NULL DEFAULT '',
  UNIQUE (campaign_id, name)
);

CREATE TABLE iterations (
  id                 INTEGER PRIMARY KEY,
  job_id             INTEGER NOT NULL REFERENCES jobs(id),
  number             INTEGER NOT NULL,
  state              TEXT NOT NULL,
  champion_branch_id INTEGER REFERENCES branches(id),
  started_at         REAL NOT NULL,
  finished_at        REAL,
  gaps_json          TEXT CHECK (gaps_json IS NULL OR json_valid(gaps_json)),
  UNIQUE (job_id, number)
);

CREATE TABLE branches (
  id               INTEGER PRIMARY KEY,
  iteration_id     INTEGER NOT NULL REFERENCES iterations(id),
  ordinal          INTEGER NOT NULL,
  kind             TEXT NOT NULL,
  parent_branch_id INTEGER REFERENCES branches(id),
  outcome          TEXT,
  methods_json     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(methods_json)),
  defines_json     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(defines_json)),
  source_path      TEXT NOT NULL DEFAULT '',
  detail           TEXT NOT NULL DEFAULT '',
  created_at       REAL NOT NULL,
  updated_at       REAL NOT NULL,
  UNIQUE (iteration_id, ordinal)
);
CREATE INDEX branches_by_parent ON branches(parent_branch_id);
CREATE INDEX branches_by_outcome ON branches(outcome);

CREATE TABLE measurements (
  id           INTEGER PRIMARY KEY,
  branch_id    INTEGER NOT NULL REFERENCES branches(id),
  gpu          INTEGER NOT NULL,
  gpu_name     TEXT NOT NULL,
  mode         TEXT NOT NULL,
  median_s     REAL NOT NULL,
  mean_s       REAL NOT NULL,
  stddev_s     REAL NOT NULL,
  cv           REAL NOT NULL,
  ci95_low_s   REAL NOT NULL,
  ci95_high_s  REAL NOT NULL,
  min_s        REAL NOT NULL,
  samples      INTEGER NOT NULL,
  sm_clock_mhz REAL,
  created_at   REAL NOT NULL
);
CREATE INDEX measurements_by_branch ON measurements(branch_id);

CREATE TABLE events (
  seq      INTEGER PRIMARY KEY CHECK (seq > 0),
  ts       REAL NOT NULL,
  type     TEXT NOT NULL,
  campaign TEXT,
  job      TEXT,
  iter     INTEGER,
  branch   INTEGER,
  gpu      INTEGER,
  json     TEXT NOT NULL CHECK (json_valid(json))
);

CREATE TABLE artifacts (
  id         INTEGER PRIMARY KEY,
  kind       TEXT NOT NULL,
  path       TEXT NOT NULL UNIQUE,
  bytes      INTEGER NOT NULL,
  sha256     TEXT,
  branch_id  INTEGER REFERENCES branches(id),
  created_at REAL NOT NULL
);
CREATE INDEX artifacts_by_branch ON artifacts(branch_id);
)sql";

// Version 2: what the llm proposer spent, one row per request to a language model (issue 11).
// Keyed by the job, the iteration the proposal fills and the call's place in it, so a repeated
// write replaces its row. No reference to iterations: a proposal's calls come before its
// iteration's row, and a proposal that yields nothing may never make one.
constexpr std::string_view schema_v2 = R"sql(
CREATE TABLE llm_calls (
  id                 INTEGER PRIMARY KEY,
  job_id             INTEGER NOT NULL REFERENCES jobs(id),
  iteration          INTEGER NOT NULL CHECK (iteration > 0),
  seq                INTEGER NOT NULL CHECK (seq > 0),
  purpose            TEXT NOT NULL,
  model              TEXT NOT NULL,
  outcome            TEXT NOT NULL,
  input_tokens       INTEGER NOT NULL DEFAULT 0,
  output_tokens      INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd           REAL NOT NULL DEFAULT 0,
  seconds            REAL NOT NULL DEFAULT 0,
  attempts           INTEGER NOT NULL DEFAULT 0,
  transcript         TEXT NOT NULL DEFAULT '',
  created_at         REAL NOT NULL,
  UNIQUE (job_id, iteration, seq)
);
)sql";

// Version 3: `warpforge deploy` (issue 13): one row per deploy of a job's champion into its
// project, keyed by its folder in the run directory, and one row per finished step. Timings are
// in the unit the deploy target reads (`unit`). Outcome and status hold deploy/'s enum texts.
constexpr std::string_view schema_v3 = R"sql(
CREATE TABLE deployments (
  id            INTEGER PRIMARY KEY,
  work_dir      TEXT NOT NULL UNIQUE,
  job           TEXT NOT NULL,
  champion      TEXT NOT NULL,
  given         INTEGER NOT NULL DEFAULT 0 CHECK (given IN (0, 1)),
  project       TEXT NOT NULL,
  file          TEXT NOT NULL,
  outcome       TEXT NOT NULL DEFAULT '',
  reason        TEXT NOT NULL DEFAULT '',
  before_median REAL,
  before_spread REAL,
  after_median  REAL,
  after_spread  REAL,
  unit          TEXT NOT NULL DEFAULT '',
  started_at    REAL NOT NULL,
  finished_at   REAL
);

CREATE TABLE deploy_steps (
  id            INTEGER PRIMARY KEY,
  deployment_id INTEGER NOT NULL REFERENCES deployments(id),
  seq           INTEGER NOT NULL CHECK (seq > 0),
  step          TEXT NOT NULL,
  status        TEXT NOT NULL,
  detail        TEXT NOT NULL DEFAULT '',
  seconds       REAL NOT NULL DEFAULT 0,
  attempt       INTEGER NOT NULL DEFAULT 1,
  log           TEXT NOT NULL DEFAULT '',
  created_at    REAL NOT NULL,
  UNIQUE (deployment_id, seq)
);
)sql";

// Version 4: a branch whose content (normalised source, defines, flags, launch) repeats an earlier
// branch of its job names that branch; it is recorded not_run and never built or raced again
// (pipeline/content_key.hpp). NULL in both columns: not a duplicate.
constexpr std::string_view schema_v4 = R"sql(
ALTER TABLE branches ADD COLUMN duplicate_of_iteration INTEGER
  CHECK (duplicate_of_iteration IS NULL OR duplicate_of_iteration >= 1);
ALTER TABLE branches ADD COLUMN duplicate_of_ordinal INTEGER
  CHECK ((duplicate_of_ordinal IS NULL) = (duplicate_of_iteration IS NULL));
)sql";

constexpr std::array warpforge_migrations{
    migration{1, "create the run database", schema_v1},
    migration{2, "add llm_calls", schema_v2},
    migration{3, "add deployments and deploy_steps", schema_v3},
    migration{4, "add branches.duplicate_of_iteration and duplicate_of_ordinal", schema_v4},
};

void check_numbering(std::span<const migration> migrations) {
  for (std::size_t i = 0; i < migrations.size(); ++i)
    if (migrations[i].version != static_cast<int>(i) + 1)
      throw std::logic_error("migrations must be numbered 1..N without gaps; entry " +
                             std::to_string(i) + " has version " +
                             std::to_string(migrations[i].version));
}

std::string name_of(const migration& m) {
  return "migration " + std::to_string(m.version) + " (" + std::string{m.description} + ")";
}

store_error too_new(int found, int latest) {
  return store_error{store_error_code::schema_too_new,
                     "the database is at schema version " + std::to_string(found) +
                         ", newer than this binary's " + std::to_string(latest) +
                         "; use a newer warpforge"};
}

/// Applies one migration inside its own transaction, unless another writer got there first.
expected<void, store_error> apply(connection& conn, const migration& m) {
  auto tx = transaction::begin(conn, transaction_mode::immediate);
  if (!tx)
    return unexpected{with_context(std::move(tx).error(), name_of(m))};
  // Re-read under the write lock: a concurrent opener may have migrated since we looked.
  auto current = schema_version(conn);
  if (!current)
    return unexpected{with_context(std::move(current).error(), name_of(m))};
  if (*current >= m.version)
    return {};
  if (*current != m.version - 1)
    return unexpected{store_error{store_error_code::migration_failed,
                                  name_of(m) + ": the database is at version " +
                                      std::to_string(*current)}};
  auto failed = [&](store_error error) {
    error.code = store_error_code::migration_failed;
    return unexpected{with_context(std::move(error), name_of(m))};
  };
  if (auto r = conn.exec(m.sql); !r)
    return failed(std::move(r).error());
  auto record = conn.prepare(
      "INSERT INTO schema_migrations (version, applied_at) "
      "VALUES (?, (julianday('now') - 2440587.5) * 86400.0)"); // unix seconds
  if (!record)
    return failed(std::move(record).error());
  if (auto r = record->bind(1, m.version).run(); !r)
    return failed(std::move(r).error());
  // PRAGMA takes no parameters; the version is an int we produced.
  if (auto r = conn.exec("PRAGMA user_version = " + std::to_string(m.version)); !r)
    return failed(std::move(r).error());
  if (auto r = tx->commit(); !r)
    return failed(std::move(r).error());
  return {};
}

} // namespace

std::span<const migration> all_migrations() {
  return warpforge_migrations;
}

int latest_version(std::span<const migration> migrations) {
  return migrations.empty() ? 0 : migrations.back().version;
}

expected<int, store_error> schema_version(connection& conn) {
  auto version = conn.query_int64("PRAGMA user_version");
  if (!version)
    return unexpected{with_context(std::move(version).error(), "read schema version")};
  return static_cast<int>(*version);
}

expected<int, store_error> check_schema_version(connection& conn,
                                                std::span<const migration> migrations) {
  auto version = schema_version(conn);
  if (!version)
    return unexpected{std::move(version).error()};
  if (*version > latest_version(migrations))
    return unexpected{too_new(*version, latest_version(migrations))};
  return *version;
}

expected<migration_result, store_error> migrate(connection& conn,
                                                std::span<const migration> migrations) {
  check_numbering(migrations);
  auto from = check_schema_version(conn, migrations);
  if (!from)
    return unexpected{std::move(from).error()};
  const int latest = latest_version(migrations);
  for (const auto& m : migrations) {
    if (m.version <= *from)
      continue;
    if (auto r = apply(conn, m); !r)
      return unexpected{std::move(r).error()};
  }
  auto to = schema_version(conn);
  if (!to)
    return unexpected{std::move(to).error()};
  if (*to > latest) // another writer with a newer binary migrated meanwhile
    return unexpected{too_new(*to, latest)};
  return migration_result{*from, *to};
}

} // namespace warpforge::storage
