// campaigns: one row per `warpforge run` (docs/run-directory.md).

#include "storage/database.hpp"
#include "storage/query.hpp"

namespace warpforge::storage {
namespace {

constexpr table campaigns{"campaigns", key_source::database,
                          column{"id", &campaign_row::id},
                          column{"name", &campaign_row::name},
                          column{"spec_path", &campaign_row::spec_path},
                          column{"spec_toml", &campaign_row::spec_toml},
                          column{"run_dir", &campaign_row::run_dir},
                          column{"state", &campaign_row::state},
                          column{"created_at", &campaign_row::created_at},
                          column{"updated_at", &campaign_row::updated_at},
                          column{"finished_at", &campaign_row::finished_at},
                          column{"reason", &campaign_row::reason}};

} // namespace

expected<row_id, store_error> database::insert_campaign(const campaign_row& row) {
  return named("insert_campaign", insert_row(conn_, campaigns, row));
}

expected<void, store_error> database::set_campaign_state(row_id id, vocabulary::campaign_state state,
                                                         std::string_view reason, unix_seconds now) {
  std::optional<unix_seconds> finished_at;
  if (is_terminal(state))
    finished_at = now;
  return named("set_campaign_state",
               update_by_key(conn_, campaigns, id, "state = ?, reason = ?, updated_at = ?, finished_at = ?",
                             state, reason, now, finished_at));
}

expected<campaign_row, store_error> database::load_campaign(row_id id) {
  return named("load_campaign",
               select_row(conn_, campaigns, "WHERE id = ?", "campaign with id " + std::to_string(id), id));
}

expected<std::optional<row_id>, store_error> database::latest_campaign() {
  return named("latest_campaign",
               select_value<row_id>(conn_, "SELECT id FROM campaigns ORDER BY id DESC LIMIT 1"));
}

} // namespace warpforge::storage
