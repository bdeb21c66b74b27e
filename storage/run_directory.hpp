#pragma once
// The run directory: where a campaign leaves everything a human or a later run needs.
//
//   <root>/<campaign>-YYYYmmdd-HHMMSS[-N]/    (UTC; -2, -3, ... when the name is taken)
//     warpforge.db                            the run database (database.hpp)
//     feed.endpoint, replay.endpoint          where the feed publishes and answers replays, one
//                                             line each, written when the feed binds
//     summary.md                              the human report
//     logs/warpforge.log                      the log of every component, one file
//     artifacts/                              exports, reports, anything not per-branch
//     jobs/<job>/iter-<n>/branch-<k>/         kernels, compile logs, SASS, metrics, prompts
//
// This class computes paths; only create() and check_writable() touch the file system.
// Names from specs become folder names through path_component(), so any spec name is safe.

#include "foundation/expected/expected.hpp"
#include "storage/store_error.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace warpforge::storage {

/// `name` as one safe path component: characters other than [A-Za-z0-9._-] become '_', and an
/// empty name, "." or ".." gets a '_' in front.
std::string path_component(std::string_view name);

/// "<name>-YYYYmmdd-HHMMSS" in UTC: the folder name create() tries first.
std::string run_directory_name(std::string_view campaign_name,
                               std::chrono::system_clock::time_point now);

/// Checks that `dir` accepts new files by creating and removing one: io naming the folder and
/// the system's reason otherwise. Used by `warpforge doctor` and before a campaign starts.
expected<void, store_error> check_writable(const std::filesystem::path& dir);

class run_directory {
public:
  /// File and folder names inside a run directory.
  static constexpr std::string_view database_file = "warpforge.db";
  static constexpr std::string_view summary_file = "summary.md";
  static constexpr std::string_view logs_folder = "logs";
  static constexpr std::string_view jobs_folder = "jobs";
  static constexpr std::string_view artifacts_folder = "artifacts";
  static constexpr std::string_view feed_endpoint_file = "feed.endpoint";
  static constexpr std::string_view replay_endpoint_file = "replay.endpoint";

  /// Creates `<root>/<name>-YYYYmmdd-HHMMSS/` (creating root if needed) with logs/, jobs/ and
  /// artifacts/; if that folder exists, tries -2, -3, ... Creation is atomic per name, so two
  /// campaigns started in the same second get different folders. The database is created by
  /// database::open(database_path()).
  /// `mode`: the new folder's permission bits (0700 by default: the database holds sources and
  /// logs), set exactly whatever the umask.
  static expected<run_directory, store_error> create(const std::filesystem::path& root,
                                                     std::string_view campaign_name,
                                                     std::chrono::system_clock::time_point now,
                                                     std::uint32_t mode = 0700);
  /// Opens an existing run directory; not_a_run_directory naming the path and what is missing.
  static expected<run_directory, store_error> open(const std::filesystem::path& path);

  /// The run directory itself (absolute).
  const std::filesystem::path& path() const { return root_; }
  std::filesystem::path database_path() const;
  std::filesystem::path summary_path() const;
  std::filesystem::path feed_endpoint_path() const;   // the feed's bound PUB endpoint
  std::filesystem::path replay_endpoint_path() const; // its replay endpoint (docs/events.md)
  std::filesystem::path logs_dir() const;
  std::filesystem::path artifacts_dir() const;
  std::filesystem::path jobs_dir() const;
  /// jobs/<job>/
  std::filesystem::path job_dir(std::string_view job_name) const;
  /// jobs/<job>/iter-<n>/
  std::filesystem::path iteration_dir(std::string_view job_name, std::int64_t iteration) const;
  /// jobs/<job>/iter-<n>/branch-<k>/
  std::filesystem::path branch_dir(std::string_view job_name, std::int64_t iteration,
                                   std::int64_t ordinal) const;
  /// `file` relative to the run directory (as the artifacts table stores it).
  std::filesystem::path relative(const std::filesystem::path& file) const;

private:
  explicit run_directory(std::filesystem::path root) : root_(std::move(root)) {}
  std::filesystem::path root_;
};

} // namespace warpforge::storage
