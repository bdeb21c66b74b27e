#include "tuning/result_cache.hpp"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

namespace warpforge::tuning {

namespace fs = std::filesystem;
using vocabulary::branch_outcome;
using storage::store_error;
using storage::store_error_code;

namespace {

constexpr std::uint64_t fnv_offset_basis = 0xcbf29ce484222325ULL;
constexpr std::uint64_t fnv_prime = 0x100000001b3ULL;

void fnv_add(std::uint64_t& hash, std::string_view bytes) {
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= fnv_prime;
  }
}

void fnv_add_field(std::uint64_t& hash, std::string_view field) {
  fnv_add(hash, std::to_string(field.size()));
  fnv_add(hash, ":");
  fnv_add(hash, field);
}

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  return std::move(text).str();
}

std::optional<std::string> non_empty_env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0')
    return std::nullopt;
  return std::string(value);
}

constexpr std::string_view schema_v1 = R"sql(
CREATE TABLE IF NOT EXISTS tuner_results (
  problem       TEXT NOT NULL,  -- problem_identity
  gpu           TEXT NOT NULL,  -- gpu_key
  point         TEXT NOT NULL,  -- canonical point text
  outcome       TEXT NOT NULL,  -- vocabulary::branch_outcome as text
  median_s      REAL,           -- seconds; passed only
  cv            REAL,           -- coefficient of variation, 1.0 = 100%
  recorded_at_s INTEGER NOT NULL, -- Unix time of the write, seconds
  PRIMARY KEY (problem, gpu, point)
) WITHOUT ROWID;
PRAGMA user_version = 1;
)sql";

} // namespace

std::string problem_identity(std::string_view spec_text, std::string_view kernel_source,
                             std::string_view reference_source) {
  std::uint64_t hash = fnv_offset_basis;
  fnv_add_field(hash, spec_text);
  fnv_add_field(hash, kernel_source);
  fnv_add_field(hash, reference_source);
  static constexpr char digits[] = "0123456789abcdef";
  std::string hex(16, '0');
  for (int i = 15; i >= 0; --i, hash >>= 4)
    hex[static_cast<std::size_t>(i)] = digits[hash & 0xf];
  return hex;
}

expected<std::string, tuning_error> problem_identity(const config::problem_spec& spec) {
  const auto kernel = read_text(spec.kernel.source);
  if (!kernel)
    return unexpected(tuning_error{tuning_error_code::cannot_read,
                                  "problem " + spec.name + ": cannot read the kernel source " +
                                      spec.kernel.source.string()});
  std::string reference;
  if (spec.reference.kind == config::reference_kind::kernel) {
    auto text = read_text(spec.reference.kernel.source);
    if (!text)
      return unexpected(tuning_error{tuning_error_code::cannot_read,
                                    "problem " + spec.name +
                                        ": cannot read the reference source " +
                                        spec.reference.kernel.source.string()});
    reference = std::move(*text);
  }
  return problem_identity(spec.raw_text, *kernel, reference);
}

std::string gpu_key(std::string_view name, std::string_view arch) {
  return std::string(name) + " (" + std::string(arch) + ")";
}

bool is_cacheable(branch_outcome outcome) {
  switch (outcome) {
  case branch_outcome::passed:
  case branch_outcome::compile_error:
  case branch_outcome::sass_rejected:
  case branch_outcome::incorrect:
  case branch_outcome::runtime_error:
  case branch_outcome::not_supported: return true;
  case branch_outcome::inconsistent: // a cheat seen once may be lucky next time: measure it again
  case branch_outcome::suspicious:
  case branch_outcome::timeout:
  case branch_outcome::not_run:
  case branch_outcome::interrupted: return false;
  }
  return false;
}

cache_environment cache_environment::from_process() {
  return {non_empty_env("WARPFORGE_CACHE_DIR"), non_empty_env("XDG_CACHE_HOME"),
          non_empty_env("HOME")};
}

fs::path default_cache_path(const cache_environment& env) {
  fs::path folder{fallback_cache_dir};
  if (env.warpforge_cache_dir && !env.warpforge_cache_dir->empty())
    folder = *env.warpforge_cache_dir;
  else if (env.xdg_cache_home && !env.xdg_cache_home->empty())
    folder = fs::path(*env.xdg_cache_home) / "warpforge";
  else if (env.home && !env.home->empty())
    folder = fs::path(*env.home) / ".cache" / "warpforge";
  return folder / cache_file_name;
}

fs::path default_cache_path() { return default_cache_path(cache_environment::from_process()); }

expected<result_cache, store_error> result_cache::open(const fs::path& path) {
  std::error_code ec;
  if (path.has_parent_path())
    fs::create_directories(path.parent_path(), ec);
  if (ec)
    return unexpected(store_error{store_error_code::cannot_open,
                                  "result_cache::open: cannot create " +
                                      path.parent_path().string() + ": " + ec.message()});
  auto connection = storage::connection::open(path, storage::open_mode::read_write_create);
  if (!connection)
    return unexpected(storage::with_context(std::move(connection.error()), "result_cache::open"));
  connection->set_busy_timeout(cache_busy_timeout);
  if (auto wal = connection->query_text("PRAGMA journal_mode = WAL"); !wal)
    return unexpected(storage::with_context(std::move(wal.error()), "result_cache::open"));
  auto version = connection->query_int64("PRAGMA user_version");
  if (!version)
    return unexpected(storage::with_context(std::move(version.error()), "result_cache::open"));
  if (*version > cache_schema_version)
    return unexpected(store_error{store_error_code::schema_too_new,
                                  "result_cache::open: " + path.string() + " has schema version " +
                                      std::to_string(*version) + "; this warpforge knows " +
                                      std::to_string(cache_schema_version)});
  if (*version < cache_schema_version) {
    auto tx = storage::transaction::begin(*connection);
    if (!tx)
      return unexpected(storage::with_context(std::move(tx.error()), "result_cache::open"));
    if (auto created = connection->exec(schema_v1); !created)
      return unexpected(storage::with_context(std::move(created.error()), "result_cache::open"));
    if (auto committed = tx->commit(); !committed)
      return unexpected(storage::with_context(std::move(committed.error()), "result_cache::open"));
  }
  return result_cache{std::move(*connection)};
}

expected<std::optional<cached_result>, store_error> result_cache::find(const cache_key& key) {
  auto select = connection_.prepare(
      "SELECT outcome, median_s, cv FROM tuner_results WHERE problem = ? AND gpu = ? AND point = ?");
  if (!select)
    return unexpected(storage::with_context(std::move(select.error()), "result_cache::find"));
  select->bind(1, key.problem).bind(2, key.gpu).bind(3, key.point);
  auto step = select->step();
  if (!step)
    return unexpected(storage::with_context(std::move(step.error()), "result_cache::find"));
  if (*step == storage::step_result::done)
    return std::optional<cached_result>{};
  const auto outcome_text = select->column_text(0);
  const auto outcome = vocabulary::from_string<branch_outcome>(outcome_text);
  if (!outcome)
    return unexpected(store_error{store_error_code::corrupt,
                                  "result_cache::find: unknown outcome '" + outcome_text +
                                      "' for " + key.point});
  return std::optional<cached_result>{
      cached_result{*outcome, select->column_optional_double(1), select->column_optional_double(2)}};
}

expected<void, store_error> result_cache::put(const cache_key& key, const cached_result& result) {
  if (!is_cacheable(result.outcome))
    return unexpected(store_error{store_error_code::invalid_argument,
                                  "result_cache::put: outcome " +
                                      std::string(vocabulary::to_string(result.outcome)) +
                                      " is not cached (it may not repeat)"});
  if (result.outcome == branch_outcome::passed && !result.median_s)
    return unexpected(store_error{store_error_code::invalid_argument,
                                  "result_cache::put: a passed result needs its median time"});
  auto upsert = connection_.prepare(
      "INSERT INTO tuner_results (problem, gpu, point, outcome, median_s, cv, recorded_at_s) "
      "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (problem, gpu, point) DO UPDATE SET "
      "outcome = excluded.outcome, median_s = excluded.median_s, cv = excluded.cv, "
      "recorded_at_s = excluded.recorded_at_s");
  if (!upsert)
    return unexpected(storage::with_context(std::move(upsert.error()), "result_cache::put"));
  const auto now_s = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  upsert->bind(1, key.problem)
      .bind(2, key.gpu)
      .bind(3, key.point)
      .bind(4, vocabulary::to_string(result.outcome))
      .bind(5, result.median_s)
      .bind(6, result.cv)
      .bind(7, static_cast<std::int64_t>(now_s));
  if (auto ran = upsert->run(); !ran)
    return unexpected(storage::with_context(std::move(ran.error()), "result_cache::put"));
  return {};
}

expected<std::vector<cached_point>, store_error> result_cache::points_for(std::string_view problem,
                                                                          std::string_view gpu) {
  auto select = connection_.prepare("SELECT point, outcome, median_s, cv FROM tuner_results "
                                    "WHERE problem = ? AND gpu = ? ORDER BY point");
  if (!select)
    return unexpected(storage::with_context(std::move(select.error()), "result_cache::points_for"));
  select->bind(1, problem).bind(2, gpu);
  std::vector<cached_point> points;
  while (true) {
    auto step = select->step();
    if (!step)
      return unexpected(storage::with_context(std::move(step.error()), "result_cache::points_for"));
    if (*step == storage::step_result::done)
      return points;
    const auto outcome_text = select->column_text(1);
    const auto outcome = vocabulary::from_string<branch_outcome>(outcome_text);
    if (!outcome)
      return unexpected(store_error{store_error_code::corrupt,
                                    "result_cache::points_for: unknown outcome '" + outcome_text +
                                        "'"});
    points.push_back({select->column_text(0),
                      {*outcome, select->column_optional_double(2),
                       select->column_optional_double(3)}});
  }
}

} // namespace warpforge::tuning
