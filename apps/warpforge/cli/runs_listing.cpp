#include "apps/warpforge/cli/runs_listing.hpp"

#include "storage/database.hpp"
#include "storage/run_directory.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <system_error>

namespace warpforge::cli {

namespace fs = std::filesystem;

namespace {

/// Name prefixes of the one-job campaigns the commands write (bench.cpp, diagnose.cpp,
/// program.cpp): "bench-<problem>" and so on; also the folder's prefix when the store is unreadable.
struct kind_prefix {
  std::string_view prefix;
  run_kind kind;
};
constexpr kind_prefix kind_prefixes[] = {{"bench-", run_kind::bench},
                                         {"diagnose-", run_kind::diagnose},
                                         {"program-", run_kind::program},
                                         {"calibrate-", run_kind::calibrate}};

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

/// Whether a campaign's spec text sets the top-level `kind = "calibrate"` (calibrate campaigns
/// may have any name). A line scan up to the first table header: cheaper than a TOML parser
/// here, and the spec was validated when the run began.
bool declares_calibrate(std::string_view spec) {
  while (!spec.empty()) {
    const auto eol = spec.find('\n');
    const auto line = trim(spec.substr(0, eol));
    spec.remove_prefix(eol == std::string_view::npos ? spec.size() : eol + 1);
    if (line.starts_with('['))
      return false;
    if (!line.starts_with("kind"))
      continue;
    auto rest = trim(line.substr(4));
    if (!rest.starts_with('='))
      continue;
    rest = trim(rest.substr(1));
    return rest == "\"calibrate\"" || rest == "'calibrate'" || rest.starts_with("\"calibrate\" ") ||
           rest.starts_with("'calibrate' ") || rest.starts_with("\"calibrate\"#") || rest.starts_with("'calibrate'#");
  }
  return false;
}

run_kind kind_from_name(std::string_view name) {
  for (const auto& [prefix, kind] : kind_prefixes)
    if (name.starts_with(prefix))
      return kind;
  return name == "calibrate" ? run_kind::calibrate : run_kind::campaign;
}

/// Bytes allocated to `path` and everything under it (st_blocks), links counted as themselves.
/// Entries that vanish or cannot be read meanwhile are left out: the size is for a person.
std::uint64_t allocated_bytes(const fs::path& path) {
  auto bytes_of = [](const fs::path& p) -> std::uint64_t {
    struct stat st{};
    return ::lstat(p.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_blocks) * 512u : 0u;
  };
  std::uint64_t total = bytes_of(path);
  std::error_code ec;
  fs::recursive_directory_iterator it{path, fs::directory_options::skip_permission_denied, ec};
  for (; !ec && it != fs::recursive_directory_iterator{}; it.increment(ec))
    total += bytes_of(it->path());
  return total;
}

double mtime_unix_s(const fs::path& path) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0)
    return 0;
  return static_cast<double>(st.st_mtim.tv_sec) + static_cast<double>(st.st_mtim.tv_nsec) * 1e-9;
}

bool is_resumable(vocabulary::campaign_state state) {
  return state == vocabulary::campaign_state::created || state == vocabulary::campaign_state::running ||
         state == vocabulary::campaign_state::interrupted;
}

/// Fills name, kind, state, start and reason from the run's store and, unless this process
/// holds the claim itself (`own_claim`: prune), its owner lock.
void read_store(const storage::run_directory& dir, run_entry& run, bool own_claim = false) {
  run.owner = own_claim ? std::nullopt : storage::run_owner::holder(dir);
  auto unreadable = [&](std::string why) {
    run.state = run.owner ? run_state::running : run_state::unreadable;
    run.reason = std::move(why);
  };
  auto db = storage::database::open_read_only(dir.database_path());
  if (!db)
    return unreadable(storage::to_string(db.error()));
  auto summary = db->load_campaign_summary();
  if (!summary)
    return unreadable(storage::to_string(summary.error()));
  const auto& campaign = summary->campaign;
  run.name = campaign.name;
  run.started_unix_s = campaign.created_at;
  run.started_from = start_source::store;
  const bool calibrate_jobs = std::any_of(summary->jobs.begin(), summary->jobs.end(), [](const auto& job) {
    return job.problem_path.starts_with("calibrate:");
  });
  run.kind = calibrate_jobs || declares_calibrate(campaign.spec_toml) ? run_kind::calibrate
                                                                      : kind_from_name(campaign.name);
  run.reason = campaign.reason;
  if (run.owner)
    run.state = run_state::running;
  else if (campaign.state == vocabulary::campaign_state::finished)
    run.state = run_state::finished;
  else if (campaign.state == vocabulary::campaign_state::failed)
    run.state = run_state::failed;
  else if (is_resumable(campaign.state)) {
    run.state = run_state::interrupted;
    if (run.reason.empty())
      run.reason = "its process ended without recording the end";
  }
}

run_entry describe(const storage::run_directory& dir, const fs::path& path) {
  run_entry run;
  run.path = path;
  run.folder = path.filename().string();
  run.name = run.folder;
  run.kind = kind_from_name(run.folder);
  run.started_unix_s = mtime_unix_s(path);
  read_store(dir, run);
  run.size_bytes = allocated_bytes(path);
  return run;
}

} // namespace

std::string_view to_string(run_kind kind) {
  switch (kind) {
  case run_kind::campaign: return "campaign";
  case run_kind::bench: return "bench";
  case run_kind::diagnose: return "diagnose";
  case run_kind::program: return "program";
  case run_kind::calibrate: return "calibrate";
  }
  return "campaign";
}

std::string_view to_string(run_state state) {
  switch (state) {
  case run_state::running: return "running";
  case run_state::finished: return "finished";
  case run_state::failed: return "failed";
  case run_state::interrupted: return "interrupted";
  case run_state::unreadable: return "unreadable";
  }
  return "unreadable";
}

std::string_view to_string(start_source source) {
  return source == start_source::store ? "store" : "folder_mtime";
}

std::string_view to_string(prune_outcome outcome) {
  switch (outcome) {
  case prune_outcome::removed: return "removed";
  case prune_outcome::would_remove: return "would_remove";
  case prune_outcome::kept_live: return "kept_live";
  case prune_outcome::kept_changed: return "kept_changed";
  case prune_outcome::failed: return "failed";
  }
  return "failed";
}

expected<run_listing, std::string> list_runs(const fs::path& root) {
  run_listing listing;
  std::error_code ec;
  listing.root = fs::absolute(root, ec);
  if (ec)
    return unexpected{"run root " + root.string() + ": " + ec.message()};
  listing.root_exists = fs::is_directory(listing.root, ec);
  if (!listing.root_exists) {
    if (fs::exists(fs::symlink_status(listing.root, ec)))
      return unexpected{"run root " + listing.root.string() + " is not a folder"};
    return listing;
  }
  fs::directory_iterator it{listing.root, ec};
  if (ec)
    return unexpected{"run root " + listing.root.string() + ": " + ec.message()};
  for (; it != fs::directory_iterator{}; it.increment(ec)) {
    if (ec)
      return unexpected{"run root " + listing.root.string() + ": " + ec.message()};
    const auto status = it->symlink_status(ec);
    if (ec || (!fs::is_directory(status) && !fs::is_symlink(status)))
      continue; // a plain file (calibrate-notes.json): not a folder, not listed
    // A link is never taken for a run: removing through it would reach outside the root.
    auto dir = storage::run_directory::open(it->path());
    if (fs::is_symlink(status) || !dir) {
      listing.not_run_directories.push_back(it->path().filename().string());
      continue;
    }
    listing.runs.push_back(describe(*dir, it->path()));
  }
  std::sort(listing.not_run_directories.begin(), listing.not_run_directories.end());
  std::sort(listing.runs.begin(), listing.runs.end(), [](const run_entry& a, const run_entry& b) {
    return a.started_unix_s != b.started_unix_s ? a.started_unix_s < b.started_unix_s : a.folder < b.folder;
  });
  return listing;
}

expected<std::chrono::seconds, std::string> parse_age(std::string_view text) {
  const auto fail = [&](std::string_view why) {
    std::string message{"--older-than '"};
    message.append(text).append("': ").append(why).append(" (a whole number and a unit: s, m, h or d, e.g. 7d)");
    return unexpected{std::move(message)};
  };
  if (text.empty())
    return fail("empty");
  std::int64_t per_unit = 0;
  switch (text.back()) {
  case 's': per_unit = 1; break;
  case 'm': per_unit = 60; break;
  case 'h': per_unit = 3600; break;
  case 'd': per_unit = 86400; break;
  default: return fail(std::isdigit(static_cast<unsigned char>(text.back())) ? "no unit" : "an unknown unit");
  }
  const auto digits = text.substr(0, text.size() - 1);
  std::int64_t count = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
  if (error == std::errc::result_out_of_range || (error == std::errc{} && count > max_prune_age_s / per_unit))
    return fail("longer than 100 years");
  if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() || count < 0)
    return fail("not a whole number");
  return std::chrono::seconds{count * per_unit};
}

bool prune_candidate(const run_entry& run, double now_unix_s, std::chrono::seconds older_than) {
  if (run.state != run_state::finished && run.state != run_state::failed)
    return false;
  return now_unix_s - run.started_unix_s >= static_cast<double>(older_than.count());
}

prune_result prune_run(const run_entry& run, bool dry_run) {
  prune_result result{run, prune_outcome::would_remove, ""};
  if (dry_run)
    return result;
  auto dir = storage::run_directory::open(run.path);
  if (!dir)
    return {run, prune_outcome::kept_changed, storage::to_string(dir.error())};
  // Held until the folder is gone: a `resume` started meanwhile is refused, never half-deleted.
  auto claim = storage::run_owner::claim(*dir, "warpforge runs --prune");
  if (!claim)
    return {run, prune_outcome::kept_live, claim.error().message};
  run_entry now = run;
  read_store(*dir, now, true);
  if (now.state != run_state::finished && now.state != run_state::failed)
    return {run, prune_outcome::kept_changed, "its store now says " + std::string{to_string(now.state)}};
  std::error_code ec;
  fs::remove_all(run.path, ec); // never follows links: a link inside goes, not what it names
  if (ec)
    return {run, prune_outcome::failed, "removing " + run.path.string() + ": " + ec.message()};
  result.outcome = prune_outcome::removed;
  return result;
}

} // namespace warpforge::cli
