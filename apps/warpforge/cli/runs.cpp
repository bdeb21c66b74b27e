// `warpforge runs [--root R] [--json]` lists the run directories under a run root;
// `warpforge runs --prune --older-than 7d [--dry-run]` removes the finished and failed ones that
// started that long ago, never a live one and never a folder that is not a run directory.
// What is listed and judged comes from apps/warpforge/cli/runs_listing.hpp; this file only prints.

#include "apps/warpforge/cli/runs.hpp"

#include "apps/warpforge/cli/runs_listing.hpp"
#include "foundation/json/writer.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <sstream>

namespace warpforge::cli {
namespace {

constexpr std::string_view me = "warpforge runs: ";

std::string utc_time(double unix_s) {
  const auto t = static_cast<std::time_t>(unix_s);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S", &utc);
  return buffer;
}

std::string size_text(std::uint64_t bytes) {
  constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return buffer;
}

double now_unix_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// What a person should know beside the state: who runs it, how to continue it, why it failed.
std::string state_note(const run_entry& run) {
  switch (run.state) {
  case run_state::running:
    return run.owner ? "pid " + std::to_string(run.owner->pid) + ": " + run.owner->command : "";
  case run_state::interrupted:
    return "resumable: warpforge resume " + run.path.string();
  case run_state::failed:
  case run_state::unreadable:
    return run.reason;
  case run_state::finished:
    return "";
  }
  return "";
}

std::string row(const run_entry& run) {
  char line[256];
  std::snprintf(line, sizeof line, "%-19s  %-11s  %-9s  %10s  ", utc_time(run.started_unix_s).c_str(),
                std::string{to_string(run.state)}.c_str(), std::string{to_string(run.kind)}.c_str(),
                size_text(run.size_bytes).c_str());
  const auto note = state_note(run);
  return line + run.folder + (note.empty() ? "" : "  (" + note + ")");
}

void write_run(json::writer& w, const run_entry& run) {
  w.begin_object()
    .key("folder").value(run.folder)
    .key("path").value(run.path.string())
    .key("name").value(run.name)
    .key("kind").value(to_string(run.kind))
    .key("state").value(to_string(run.state))
    .key("started_at").value(run.started_unix_s)
    .key("started_utc").value(utc_time(run.started_unix_s))
    .key("started_from").value(to_string(run.started_from))
    .key("size_bytes").value(run.size_bytes);
  w.key("owner_pid");
  run.owner ? w.value(static_cast<std::int64_t>(run.owner->pid)) : w.null();
  w.key("reason").value(run.reason).end_object();
}

void write_folders(json::writer& w, const run_listing& listing) {
  w.key("not_run_directories").begin_array();
  for (const auto& name : listing.not_run_directories)
    w.value(name);
  w.end_array();
}

std::string list_text(const run_listing& listing) {
  std::ostringstream out;
  if (!listing.root_exists) {
    out << "no run directories: " << listing.root.string() << " does not exist\n";
    return out.str();
  }
  std::uint64_t total = 0;
  for (const auto& run : listing.runs)
    total += run.size_bytes;
  out << listing.runs.size() << " run director" << (listing.runs.size() == 1 ? "y" : "ies") << " under "
      << listing.root.string() << ", " << size_text(total) << '\n';
  if (!listing.runs.empty()) {
    char header[128];
    std::snprintf(header, sizeof header, "%-19s  %-11s  %-9s  %10s  %s\n", "STARTED (UTC)", "STATE", "KIND", "SIZE",
                  "FOLDER");
    out << header;
    for (const auto& run : listing.runs)
      out << row(run) << '\n';
  }
  if (!listing.not_run_directories.empty()) {
    out << "not run directories (never pruned):";
    for (const auto& name : listing.not_run_directories)
      out << ' ' << name;
    out << '\n';
  }
  return out.str();
}

std::string list_json(const run_listing& listing) {
  json::writer w;
  w.begin_object().key("root").value(listing.root.string()).key("root_exists").value(listing.root_exists);
  w.key("runs").begin_array();
  std::uint64_t total = 0;
  for (const auto& run : listing.runs) {
    write_run(w, run);
    total += run.size_bytes;
  }
  w.end_array().key("total_bytes").value(total);
  write_folders(w, listing);
  w.end_object();
  return std::move(w).str() + "\n";
}

struct prune_report {
  std::vector<prune_result> results; // one per candidate
  std::vector<run_entry> kept_old;   // old enough, but live, interrupted or unreadable
};

prune_report prune(const run_listing& listing, std::chrono::seconds older_than, bool dry_run) {
  prune_report report;
  const double now = now_unix_s();
  for (const auto& run : listing.runs) {
    if (prune_candidate(run, now, older_than))
      report.results.push_back(prune_run(run, dry_run));
    else if (now - run.started_unix_s >= static_cast<double>(older_than.count()))
      report.kept_old.push_back(run);
  }
  return report;
}

std::uint64_t freed_bytes(const prune_report& report) {
  std::uint64_t freed = 0;
  for (const auto& r : report.results)
    if (r.outcome == prune_outcome::removed || r.outcome == prune_outcome::would_remove)
      freed += r.run.size_bytes;
  return freed;
}

std::string prune_text(const run_listing& listing, const prune_report& report, bool dry_run) {
  std::ostringstream out;
  std::size_t gone = 0;
  for (const auto& r : report.results) {
    switch (r.outcome) {
    case prune_outcome::removed: out << "removed       "; ++gone; break;
    case prune_outcome::would_remove: out << "would remove  "; ++gone; break;
    case prune_outcome::kept_live:
    case prune_outcome::kept_changed: out << "kept          "; break;
    case prune_outcome::failed: out << "FAILED        "; break;
    }
    out << row(r.run) << (r.reason.empty() ? "" : "  " + r.reason) << '\n';
  }
  for (const auto& run : report.kept_old)
    out << "kept          " << row(run) << '\n';
  out << (dry_run ? "would free " : "freed ") << size_text(freed_bytes(report)) << " in " << gone << " run director"
      << (gone == 1 ? "y" : "ies") << " under " << listing.root.string();
  if (!report.kept_old.empty())
    out << "; kept " << report.kept_old.size() << " as old that are running, interrupted or unreadable";
  out << '\n';
  if (!listing.not_run_directories.empty())
    out << "left alone (not run directories): " << listing.not_run_directories.size() << '\n';
  return out.str();
}

std::string prune_json(const run_listing& listing, const prune_report& report, bool dry_run,
                       std::chrono::seconds older_than) {
  json::writer w;
  w.begin_object()
    .key("root").value(listing.root.string())
    .key("dry_run").value(dry_run)
    .key("older_than_s").value(static_cast<std::int64_t>(older_than.count()));
  w.key("results").begin_array();
  for (const auto& r : report.results) {
    w.begin_object().key("outcome").value(to_string(r.outcome)).key("reason").value(r.reason).key("run");
    write_run(w, r.run);
    w.end_object();
  }
  w.end_array().key("kept").begin_array();
  for (const auto& run : report.kept_old)
    write_run(w, run);
  w.end_array().key(dry_run ? "would_free_bytes" : "freed_bytes").value(freed_bytes(report));
  write_folders(w, listing);
  w.end_object();
  return std::move(w).str() + "\n";
}

} // namespace

exit_code runs(const runs_options& options) {
  std::chrono::seconds older_than{0};
  if (options.prune) {
    auto age = parse_age(options.older_than);
    if (!age) {
      std::cerr << me << age.error() << '\n';
      return exit_code::usage;
    }
    older_than = *age;
  }
  auto listing = list_runs(options.root);
  if (!listing) {
    std::cerr << me << listing.error() << '\n';
    return exit_code::bad_input;
  }
  if (!options.prune) {
    std::cout << (options.json ? list_json(*listing) : list_text(*listing));
    return exit_code::ok;
  }
  const auto report = prune(*listing, older_than, options.dry_run);
  std::cout << (options.json ? prune_json(*listing, report, options.dry_run, older_than)
                             : prune_text(*listing, report, options.dry_run));
  for (const auto& r : report.results)
    if (r.outcome == prune_outcome::failed)
      return exit_code::failure;
  return exit_code::ok;
}

} // namespace warpforge::cli
