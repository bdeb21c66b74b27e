#pragma once
// store: the single writer of the run directory's SQLite database. Every write commits on its
// own (WAL), so a kill loses at most the write in flight. Runs detached: SQLite blocks.

#include "messages/store.hpp"
#include "storage/database.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace warpforge::actors {

struct store_state {
  static inline const char* name = "store";

  std::optional<storage::database> db;
  std::int64_t rows_written = 0;
  std::int64_t write_errors = 0;
  std::string last_error;

  /// Opens (creating and migrating) the database; throws when it cannot: a store that cannot
  /// write is dead, and its supervisor decides what follows.
  void open(const std::filesystem::path& path);

  // Each write answers a row id (the one written, or the one it changed) once it is durable.
  expected<std::int64_t, storage::store_error> record(const storage::campaign_record& r);
  expected<std::int64_t, storage::store_error> record(const storage::job_record& r);
  expected<std::int64_t, storage::store_error> record(const storage::campaign_state_change& c);
  expected<std::int64_t, storage::store_error> record(const storage::job_state_change& c);
  expected<std::int64_t, storage::store_error> record(const feed::event& e);
  expected<std::int64_t, storage::store_error> record(const storage::job_update& u);
  // Keyed by (job, iteration, ordinal): the rows are found or made, so repeating a write after a
  // store restart changes nothing.
  expected<std::int64_t, storage::store_error> record(const storage::iteration_update& u);
  expected<std::int64_t, storage::store_error> record(const storage::branch_record& r);
  expected<std::int64_t, storage::store_error> record(const storage::branch_outcome_change& c);
  expected<std::int64_t, storage::store_error> record(const storage::measurement_record& r);
  // Keyed by (job, iteration, seq): a repeated write replaces the row.
  expected<std::int64_t, storage::store_error> record(const storage::llm_call_record& r);
  expected<std::int64_t, storage::store_error> record(const storage::deployment_record& r);
  expected<std::int64_t, storage::store_error> record(const storage::deploy_step_record& r);
  expected<std::int64_t, storage::store_error> record(const storage::deployment_result& r);

  /// The row of the job's iteration `number`, made when missing.
  expected<std::int64_t, storage::store_error> iteration_id(std::int64_t job_id, std::int64_t number);
  /// The row of an existing branch (not_found otherwise).
  expected<std::int64_t, storage::store_error> branch_id(const storage::branch_key& key);

  /// Counts a failed write and logs it; the store goes on (degraded) with the next one.
  void note_failure(const storage::store_error& error);
  messages::component_status status() const;
};

messages::store_actor::behavior_type
store(messages::store_actor::stateful_pointer<store_state> self, std::filesystem::path database);

} // namespace warpforge::actors
