#pragma once
// The tuner's result cache, across runs: one SQLite file per user, keyed by
// (problem identity, GPU, point), holding the outcome, median time and spread of each point
// measured. A campaign seeds its history from it, so a point measured on this GPU for this exact
// problem is never compiled or timed again.
//
//   auto cache = result_cache::open(default_cache_path());       // creates file and folder
//   cache_key key{*problem_identity(spec), gpu_key("NVIDIA H100 80GB HBM3", "sm_90"),
//                 canonical_text(point)};
//   cache->put(key, {vocabulary::branch_outcome::passed, 1.21e-3, 0.004});
//   auto hit = cache->find(key);                                   // optional<cached_result>
//
// Identity: the problem is named by a hash of its spec's TOML text and of its kernel's (and
// reference kernel's) source text, so editing any of them misses the cache. Only outcomes that
// belong to the point are cached (is_cacheable): passed, and the failures that will repeat
// (compile_error, sass_rejected, incorrect, runtime_error, not_supported); timeout, not_run and
// interrupted may not repeat and are not kept. A later put of the same key replaces the row.
// Several processes may share the file (WAL, busy timeout).

#include "config/problem_spec.hpp"
#include "foundation/expected/expected.hpp"
#include "foundation/vocabulary/branch.hpp"
#include "storage/sqlite.hpp"
#include "storage/store_error.hpp"
#include "tuning/tuning_error.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::tuning {

/// The cache file's schema version (PRAGMA user_version).
inline constexpr std::int64_t cache_schema_version = 1;
/// How long a write waits for another process holding the file's lock.
inline constexpr std::chrono::milliseconds cache_busy_timeout{5000};
/// The cache file's name inside the cache folder.
inline constexpr std::string_view cache_file_name = "tuner.db";
/// The folder used when no environment variable names one.
inline constexpr std::string_view fallback_cache_dir = "/tmp/warpforge-cache";

/// 16 hex digits: FNV-1a (64 bit) over the three texts, each prefixed by its length.
std::string problem_identity(std::string_view spec_text, std::string_view kernel_source,
                             std::string_view reference_source = {});
/// The identity of `spec`: its raw TOML text, its kernel source and, for reference kind kernel,
/// the reference source (read from disk); cannot_read when a source cannot be read.
expected<std::string, tuning_error> problem_identity(const config::problem_spec& spec);

/// "<name> (<arch>)", e.g. "NVIDIA H100 80GB HBM3 (sm_90)".
std::string gpu_key(std::string_view name, std::string_view arch);

struct cache_key {
  std::string problem; ///< problem_identity
  std::string gpu;     ///< gpu_key
  std::string point;   ///< canonical_text of the tunable point
};

struct cached_result {
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::passed;
  std::optional<double> median_s; ///< median kernel time, seconds (passed only)
  std::optional<double> cv;       ///< coefficient of variation of the samples, 1.0 = 100%

  bool operator==(const cached_result&) const = default;
};

/// One cached point of a problem on a GPU.
struct cached_point {
  std::string point; ///< canonical text (parse_point_text gives the point back)
  cached_result result;
};

/// Whether an outcome is a property of the point that a later run would see again.
bool is_cacheable(vocabulary::branch_outcome outcome);

/// The inputs of default_cache_path, so tests can set them.
struct cache_environment {
  std::optional<std::string> warpforge_cache_dir; ///< $WARPFORGE_CACHE_DIR
  std::optional<std::string> xdg_cache_home;      ///< $XDG_CACHE_HOME
  std::optional<std::string> home;                ///< $HOME
  static cache_environment from_process();
};

/// <folder>/tuner.db, the folder as for the compile cache (gpu/compile/compile_cache.hpp):
/// $WARPFORGE_CACHE_DIR, else $XDG_CACHE_HOME/warpforge, else $HOME/.cache/warpforge, else
/// /tmp/warpforge-cache (unset and empty variables are skipped).
std::filesystem::path default_cache_path(const cache_environment& env);
std::filesystem::path default_cache_path();

class result_cache {
public:
  /// Opens or creates the file (and its folder). schema_too_new when a newer warpforge wrote it.
  static expected<result_cache, storage::store_error> open(const std::filesystem::path& path);

  /// The row of `key`, or nullopt when there is none.
  expected<std::optional<cached_result>, storage::store_error> find(const cache_key& key);
  /// Writes (or replaces) the row of `key`; invalid_argument for an outcome that is not
  /// cacheable, or a passed result without a time.
  expected<void, storage::store_error> put(const cache_key& key, const cached_result& result);
  /// Every cached point of `problem` on `gpu`, in point-text order.
  expected<std::vector<cached_point>, storage::store_error> points_for(std::string_view problem,
                                                                       std::string_view gpu);

  const std::filesystem::path& path() const { return connection_.path(); }

private:
  explicit result_cache(storage::connection connection) : connection_(std::move(connection)) {}

  storage::connection connection_;
};

} // namespace warpforge::tuning
