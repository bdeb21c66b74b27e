// artifacts: files of the run directory worth indexing, by their path relative to it (unique).

#include "storage/database.hpp"
#include "storage/query.hpp"

#include <filesystem>

namespace warpforge::storage {
namespace {

constexpr table artifacts{"artifacts", key_source::database,
                          column{"id", &artifact_row::id},
                          column{"kind", &artifact_row::kind},
                          column{"path", &artifact_row::path},
                          column{"bytes", &artifact_row::bytes},
                          column{"sha256", &artifact_row::sha256},
                          column{"branch_id", &artifact_row::branch_id},
                          column{"created_at", &artifact_row::created_at}};

/// Why `text` is no path inside the run directory, or nothing when it is one.
std::optional<std::string> invalid_artifact_path(const std::string& text) {
  std::filesystem::path path{text};
  if (path.empty())
    return "the path is empty";
  if (path.is_absolute())
    return "'" + text + "' is absolute; give it relative to the run directory";
  for (const auto& part : path)
    if (part == "..")
      return "'" + text + "' leaves the run directory (..)";
  return std::nullopt;
}

} // namespace

expected<row_id, store_error> database::insert_artifact(const artifact_row& row) {
  if (auto problem = invalid_artifact_path(row.path))
    return unexpected{store_error{store_error_code::invalid_argument, "insert_artifact: " + *problem}};
  // A file rewritten on resume: its row takes the new values and keeps its id.
  return named("insert_artifact", upsert_row(conn_, artifacts, row, {"path"}, on_conflict::replace));
}

expected<std::vector<artifact_row>, store_error> database::load_artifacts() {
  return named("load_artifacts", select_rows(conn_, artifacts, "ORDER BY id"));
}

} // namespace warpforge::storage
