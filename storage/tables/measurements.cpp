// measurements: one timing series of one branch on one GPU in one mode.

#include "storage/database.hpp"
#include "storage/query.hpp"

namespace warpforge::storage {
namespace {

constexpr table measurements{"measurements", key_source::database,
                             column{"id", &measurement_row::id},
                             column{"branch_id", &measurement_row::branch_id},
                             column{"gpu", &measurement_row::gpu},
                             column{"gpu_name", &measurement_row::gpu_name},
                             column{"mode", &measurement_row::mode},
                             column{"median_s", &measurement_row::median_s},
                             column{"mean_s", &measurement_row::mean_s},
                             column{"stddev_s", &measurement_row::stddev_s},
                             column{"cv", &measurement_row::cv},
                             column{"ci95_low_s", &measurement_row::ci95_low_s},
                             column{"ci95_high_s", &measurement_row::ci95_high_s},
                             column{"min_s", &measurement_row::min_s},
                             column{"samples", &measurement_row::samples},
                             column{"sm_clock_mhz", &measurement_row::sm_clock_mhz},
                             column{"created_at", &measurement_row::created_at}};

} // namespace

expected<row_id, store_error> database::insert_measurement(const measurement_row& row) {
  return named("insert_measurement", insert_row(conn_, measurements, row));
}

expected<std::vector<measurement_row>, store_error> database::load_measurements(row_id branch_id) {
  return named("load_measurements",
               select_rows(conn_, measurements, "WHERE branch_id = ? ORDER BY id", branch_id));
}

expected<std::optional<row_id>, store_error> database::find_measurement(row_id branch_id, std::int64_t gpu,
                                                                        vocabulary::timing_mode mode) {
  return named("find_measurement",
               select_value<row_id>(conn_, "SELECT id FROM measurements WHERE branch_id = ? AND gpu = ? AND mode = ?",
                                    branch_id, gpu, mode));
}

expected<void, store_error> database::update_measurement(const measurement_row& row) {
  // Every column but the ones that say which series it is (branch, GPU, mode).
  return named("update_measurement",
               update_row(conn_, measurements, row,
                          {"gpu_name", "median_s", "mean_s", "stddev_s", "cv", "ci95_low_s", "ci95_high_s", "min_s",
                           "samples", "sm_clock_mhz", "created_at"}));
}

} // namespace warpforge::storage
