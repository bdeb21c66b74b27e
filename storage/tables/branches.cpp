// branches: every candidate of an iteration (proposals, ablations, the baseline), its ordinal
// unique within the iteration.

#include "storage/database.hpp"
#include "storage/query.hpp"

namespace warpforge::storage {
namespace {

constexpr table branches{"branches", key_source::database,
                         column{"id", &branch_row::id},
                         column{"iteration_id", &branch_row::iteration_id},
                         column{"ordinal", &branch_row::ordinal},
                         column{"kind", &branch_row::kind},
                         column{"parent_branch_id", &branch_row::parent_branch_id},
                         column{"outcome", &branch_row::outcome},
                         column{"methods_json", &branch_row::methods_json},
                         column{"defines_json", &branch_row::defines_json},
                         column{"source_path", &branch_row::source_path},
                         column{"detail", &branch_row::detail},
                         column{"created_at", &branch_row::created_at},
                         column{"updated_at", &branch_row::updated_at},
                         column{"duplicate_of_iteration", &branch_row::duplicate_of_iteration}, // migration 4
                         column{"duplicate_of_ordinal", &branch_row::duplicate_of_ordinal}};

} // namespace

expected<row_id, store_error> database::insert_branch(const branch_row& row) {
  return named("insert_branch", insert_row(conn_, branches, row));
}

expected<void, store_error> database::set_branch_outcome(row_id id, vocabulary::branch_outcome outcome,
                                                         std::string_view detail, unix_seconds now) {
  return named("set_branch_outcome",
               update_by_key(conn_, branches, id, "outcome = ?, detail = ?, updated_at = ?", outcome, detail, now));
}

expected<std::vector<branch_row>, store_error> database::load_branches(row_id iteration_id) {
  return named("load_branches",
               select_rows(conn_, branches, "WHERE iteration_id = ? ORDER BY ordinal", iteration_id));
}

expected<std::optional<row_id>, store_error> database::find_branch(row_id iteration_id, std::int64_t ordinal) {
  return named("find_branch", select_value<row_id>(
                                  conn_, "SELECT id FROM branches WHERE iteration_id = ? AND ordinal = ?",
                                  iteration_id, ordinal));
}

} // namespace warpforge::storage
