#pragma once
// The run directories under a run root, for `warpforge runs`: what each one is (its kind, name,
// state, start and size on disk) and, for `--prune`, which may go. CLI11-free, so the command is
// a thin printer over it.
//
// What counts as a run directory: a folder (not a link) directly under the root that
// storage::run_directory::open accepts (warpforge.db, logs/, jobs/, artifacts/). Anything else
// is listed as "not a run directory" and never removed.
//
// State: running while a process holds the run's owner lock (storage/run_owner.hpp), whatever
// the store says; else the store's campaign state, where a campaign the store calls created or
// running has lost its process and is interrupted (resumable); unreadable when the store cannot
// be read (no campaign recorded, another schema, damage): kept, with the reason.
//
// Age is measured from the run's start: the campaign's created_at in its store, else (no
// readable campaign) the folder's modification time. The list's STARTED column is the same
// instant, so what the list shows is what --prune judges.

#include "foundation/expected/expected.hpp"
#include "storage/run_owner.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::cli {

/// The longest --older-than accepted: 100 years, in seconds (larger numbers are a typo, and
/// would overflow the arithmetic on time points).
inline constexpr std::int64_t max_prune_age_s = 100LL * 365 * 24 * 3600;

/// Which command made the run.
enum class run_kind : std::uint8_t { campaign, bench, diagnose, program, calibrate };
std::string_view to_string(run_kind kind);

enum class run_state : std::uint8_t {
  running,     ///< a live process holds the owner lock
  finished,    ///< the store says finished
  failed,      ///< the store says failed
  interrupted, ///< stopped (signal, crash, lost machine); `warpforge resume` continues it
  unreadable,  ///< the store could not be read; `reason` says why
};
std::string_view to_string(run_state state);

/// Where a run's start (its age) was read from.
enum class start_source : std::uint8_t { store, folder_mtime };
std::string_view to_string(start_source source);

struct run_entry {
  std::filesystem::path path;            ///< absolute
  std::string folder;                    ///< the folder's name under the root
  std::string name;                      ///< the campaign's name in the store, else the folder's
  run_kind kind = run_kind::campaign;
  run_state state = run_state::unreadable;
  std::optional<storage::run_holder> owner; ///< set while running
  double started_unix_s = 0;             ///< seconds since 1970-01-01 UTC
  start_source started_from = start_source::folder_mtime;
  std::uint64_t size_bytes = 0;          ///< allocated on disk, bytes (links not followed)
  std::string reason;                    ///< the store's reason (failed, interrupted), or why unreadable
};

struct run_listing {
  std::filesystem::path root;                       ///< absolute
  bool root_exists = false;
  std::vector<run_entry> runs;                      ///< oldest first
  std::vector<std::string> not_run_directories;     ///< folder and link names under root, sorted
};

/// Reads every entry directly under `root`. An error names the root and the system's reason
/// (a root that does not exist is not an error: root_exists is false).
expected<run_listing, std::string> list_runs(const std::filesystem::path& root);

/// "7d", "12h", "30m", "45s" (a whole number and one unit) as seconds; an error says what is
/// wrong with `text`. Zero is allowed (every finished run); above max_prune_age_s is refused.
expected<std::chrono::seconds, std::string> parse_age(std::string_view text);

/// Whether --prune may remove `run` now: finished or failed, and started at least `older_than`
/// before `now_unix_s`. Live, interrupted and unreadable runs never qualify.
bool prune_candidate(const run_entry& run, double now_unix_s, std::chrono::seconds older_than);

enum class prune_outcome : std::uint8_t {
  removed,       ///< gone
  would_remove,  ///< --dry-run: it qualifies; nothing was touched
  kept_live,     ///< a process claimed it between the listing and the removal
  kept_changed,  ///< its store no longer says finished or failed (a resume ran meanwhile)
  failed,        ///< the removal failed part-way; `reason` names the path and error
};
std::string_view to_string(prune_outcome outcome);

struct prune_result {
  run_entry run;
  prune_outcome outcome = prune_outcome::would_remove;
  std::string reason;
};

/// Removes one candidate (or, `dry_run`, only says it would). The run's owner lock is claimed
/// first and held during the removal, so no `resume` can start in it meanwhile; its store is
/// read again under the claim and must still say finished or failed.
prune_result prune_run(const run_entry& run, bool dry_run);

} // namespace warpforge::cli
