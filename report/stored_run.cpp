#include "report/stored_run.hpp"

namespace warpforge::report {

expected<stored_run, storage::store_error> open_stored_run(const std::filesystem::path& run_dir) {
  auto dir = storage::run_directory::open(run_dir);
  if (!dir)
    return unexpected{std::move(dir).error()};
  auto db = storage::database::open_read_only(dir->database_path());
  if (!db)
    return unexpected{std::move(db).error()};
  auto summary = db->load_campaign_summary();
  if (!summary)
    return unexpected{std::move(summary).error()};
  return stored_run{std::move(*dir), std::move(*db), std::move(*summary)};
}

} // namespace warpforge::report
