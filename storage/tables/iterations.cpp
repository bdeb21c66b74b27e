// iterations: a job's rounds, numbered from 1 and unique within the job.

#include "storage/database.hpp"
#include "storage/query.hpp"

namespace warpforge::storage {
namespace {

constexpr table iterations{"iterations", key_source::database,
                           column{"id", &iteration_row::id},
                           column{"job_id", &iteration_row::job_id},
                           column{"number", &iteration_row::number},
                           column{"state", &iteration_row::state},
                           column{"champion_branch_id", &iteration_row::champion_branch_id},
                           column{"started_at", &iteration_row::started_at},
                           column{"finished_at", &iteration_row::finished_at},
                           column{"gaps_json", &iteration_row::gaps_json}};

} // namespace

expected<row_id, store_error> database::insert_iteration(const iteration_row& row) {
  return named("insert_iteration", insert_row(conn_, iterations, row));
}

expected<void, store_error> database::update_iteration(const iteration_row& row) {
  return named("update_iteration",
               update_row(conn_, iterations, row, {"state", "champion_branch_id", "finished_at", "gaps_json"}));
}

expected<std::vector<iteration_row>, store_error> database::load_iterations(row_id job_id) {
  return named("load_iterations", select_rows(conn_, iterations, "WHERE job_id = ? ORDER BY number", job_id));
}

expected<std::optional<row_id>, store_error> database::find_iteration(row_id job_id, std::int64_t number) {
  return named("find_iteration", select_value<row_id>(conn_, "SELECT id FROM iterations WHERE job_id = ? AND number = ?",
                                                      job_id, number));
}

} // namespace warpforge::storage
