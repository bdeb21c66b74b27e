// deployments (migration 3): one `warpforge deploy` of a job's champion into its project, keyed
// by its folder in the run directory (work_dir, unique).

#include "storage/database.hpp"
#include "storage/query.hpp"

namespace warpforge::storage {
namespace {

constexpr table deployments{"deployments", key_source::database,
                            column{"id", &deployment_row::id},
                            column{"work_dir", &deployment_row::work_dir},
                            column{"job", &deployment_row::job},
                            column{"champion", &deployment_row::champion},
                            column{"given", &deployment_row::given},
                            column{"project", &deployment_row::project},
                            column{"file", &deployment_row::file},
                            column{"outcome", &deployment_row::outcome},
                            column{"reason", &deployment_row::reason},
                            column{"before_median", &deployment_row::before_median},
                            column{"before_spread", &deployment_row::before_spread},
                            column{"after_median", &deployment_row::after_median},
                            column{"after_spread", &deployment_row::after_spread},
                            column{"unit", &deployment_row::unit},
                            column{"started_at", &deployment_row::started_at},
                            column{"finished_at", &deployment_row::finished_at}};

std::optional<double> taken(bool has, double value) {
  return has ? std::optional<double>{value} : std::nullopt;
}

} // namespace

expected<row_id, store_error> database::record_deployment(const deployment_record& record, unix_seconds now) {
  deployment_row row; // outcome, reason, timings: none yet
  row.work_dir = record.work_dir;
  row.job = record.job;
  row.champion = record.champion;
  row.given = record.given;
  row.project = record.project;
  row.file = record.file;
  row.started_at = now;
  // The same work_dir again (a resumed deploy) keeps its row and its started_at.
  return named("record_deployment", upsert_row(conn_, deployments, row, {"work_dir"}, on_conflict::keep));
}

expected<std::optional<row_id>, store_error> database::find_deployment(std::string_view work_dir) {
  return named("find_deployment", select_value<row_id>(conn_, "SELECT id FROM deployments WHERE work_dir = ?", work_dir));
}

expected<void, store_error> database::finish_deployment(const deployment_result& result, unix_seconds now) {
  auto changed = execute(conn_,
                         "UPDATE deployments SET outcome = ?, reason = ?, before_median = ?, before_spread = ?, "
                         "after_median = ?, after_spread = ?, unit = ?, finished_at = ? WHERE work_dir = ?",
                         result.outcome, result.reason, taken(result.has_before, result.before_median),
                         taken(result.has_before, result.before_spread), taken(result.has_after, result.after_median),
                         taken(result.has_after, result.after_spread), result.unit, now, result.work_dir);
  if (!changed)
    return unexpected{with_context(std::move(changed).error(), "finish_deployment")};
  if (*changed == 0)
    return unexpected{store_error{store_error_code::not_found,
                                  "finish_deployment: no deployment with work_dir '" + result.work_dir + "'"}};
  return {};
}

expected<std::vector<deployment_row>, store_error> database::load_deployments() {
  return named("load_deployments", select_rows(conn_, deployments, "ORDER BY id"));
}

} // namespace warpforge::storage
