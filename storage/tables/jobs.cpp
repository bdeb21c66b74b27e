// jobs: one row per problem of a campaign, its name unique within the campaign.

#include "storage/database.hpp"
#include "storage/query.hpp"

namespace warpforge::storage {
namespace {

constexpr table jobs{"jobs", key_source::database,
                     column{"id", &job_row::id},
                     column{"campaign_id", &job_row::campaign_id},
                     column{"name", &job_row::name},
                     column{"problem_path", &job_row::problem_path},
                     column{"state", &job_row::state},
                     column{"iterations_done", &job_row::iterations_done},
                     column{"best_time_s", &job_row::best_time_s},
                     column{"baseline_time_s", &job_row::baseline_time_s},
                     column{"updated_at", &job_row::updated_at},
                     column{"reason", &job_row::reason}};

} // namespace

expected<row_id, store_error> database::insert_job(const job_row& row) {
  return named("insert_job", insert_row(conn_, jobs, row));
}

expected<void, store_error> database::set_job_state(row_id id, vocabulary::job_state state, std::string_view reason,
                                                    unix_seconds now) {
  return named("set_job_state",
               update_by_key(conn_, jobs, id, "state = ?, reason = ?, updated_at = ?", state, reason, now));
}

expected<void, store_error> database::update_job(const job_row& row) {
  return named("update_job", update_row(conn_, jobs, row,
                                        {"state", "iterations_done", "best_time_s", "baseline_time_s",
                                         "updated_at", "reason"}));
}

expected<void, store_error> database::set_job_progress(row_id id, std::int64_t iterations_done,
                                                      std::optional<double> best_time_s,
                                                      std::optional<double> baseline_time_s,
                                                      unix_seconds now) {
  // An empty time leaves the stored one as it is.
  return named("set_job_progress",
               update_by_key(conn_, jobs, id,
                             "iterations_done = ?, best_time_s = COALESCE(?, best_time_s), "
                             "baseline_time_s = COALESCE(?, baseline_time_s), updated_at = ?",
                             iterations_done, best_time_s, baseline_time_s, now));
}

expected<std::vector<job_row>, store_error> database::load_jobs(row_id campaign_id) {
  return named("load_jobs", select_rows(conn_, jobs, "WHERE campaign_id = ? ORDER BY id", campaign_id));
}

} // namespace warpforge::storage
