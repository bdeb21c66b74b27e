// deploy_steps (migration 3): every finished step of a deployment, in order; (deployment_id,
// seq) unique.

#include "storage/database.hpp"
#include "storage/query.hpp"

namespace warpforge::storage {
namespace {

constexpr table deploy_steps{"deploy_steps", key_source::database,
                             column{"id", &deploy_step_row::id},
                             column{"deployment_id", &deploy_step_row::deployment_id},
                             column{"seq", &deploy_step_row::seq},
                             column{"step", &deploy_step_row::step},
                             column{"status", &deploy_step_row::status},
                             column{"detail", &deploy_step_row::detail},
                             column{"seconds", &deploy_step_row::seconds},
                             column{"attempt", &deploy_step_row::attempt},
                             column{"log", &deploy_step_row::log},
                             column{"created_at", &deploy_step_row::created_at}};

} // namespace

expected<row_id, store_error> database::record_deploy_step(const deploy_step_record& record, unix_seconds now) {
  auto deployment = find_deployment(record.work_dir);
  if (!deployment)
    return unexpected{with_context(std::move(deployment).error(), "record_deploy_step")};
  if (!*deployment)
    return unexpected{store_error{store_error_code::not_found,
                                  "record_deploy_step: no deployment with work_dir '" + record.work_dir + "'"}};
  const deploy_step_row row{0,           **deployment, record.seq,     record.step, record.status,
                            record.detail, record.seconds, record.attempt, record.log,  now};
  // The same seq again replaces that step.
  return named("record_deploy_step",
               upsert_row(conn_, deploy_steps, row, {"deployment_id", "seq"}, on_conflict::replace));
}

expected<std::vector<deploy_step_row>, store_error> database::load_deploy_steps(row_id deployment_id) {
  return named("load_deploy_steps",
               select_rows(conn_, deploy_steps, "WHERE deployment_id = ? ORDER BY seq", deployment_id));
}

} // namespace warpforge::storage
