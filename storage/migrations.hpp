#pragma once
// Numbered forward migrations of the run database. The schema version lives in
// `PRAGMA user_version` (the authority, read before anything else) and is mirrored, one row per
// applied migration, in `schema_migrations(version, applied_at)` for humans.
//
// Policy (docs/run-directory.md): migrations only go forward; an applied migration is never
// edited; a schema change is one entry appended to all_migrations() with the next version. Each
// migration runs in its own transaction with the version bump, so a crash leaves the database at
// the previous version or the next, never between. A database newer than the list is refused
// (schema_too_new) and left untouched.

#include "foundation/expected/expected.hpp"
#include "storage/sqlite.hpp"
#include "storage/store_error.hpp"

#include <span>
#include <string_view>

namespace warpforge::storage {

struct migration {
  int version = 0;              ///< 1, 2, 3, ... without gaps
  std::string_view description; ///< one line, shown in errors
  std::string_view sql;         ///< a script of one or more statements
};

/// warpforge's migrations, version 1 first.
std::span<const migration> all_migrations();

/// The version the last migration of `migrations` produces (0 for an empty list).
int latest_version(std::span<const migration> migrations);

/// The database's `PRAGMA user_version`; 0 for a new, empty file.
expected<int, store_error> schema_version(connection& conn);

/// The database's version, or schema_too_new (naming both versions) when it is newer than
/// latest_version(migrations). Reads only.
expected<int, store_error> check_schema_version(connection& conn,
                                                std::span<const migration> migrations);

struct migration_result {
  int from_version = 0;
  int to_version = 0;
};

/// Brings the database up to latest_version(migrations), one transaction per migration.
/// Errors: schema_too_new (nothing written), migration_failed (that migration rolled back; the
/// earlier ones stay), busy. Throws std::logic_error when `migrations` is not numbered 1..N.
expected<migration_result, store_error> migrate(connection& conn,
                                                std::span<const migration> migrations);

} // namespace warpforge::storage
