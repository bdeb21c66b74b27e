// `warpforge calibrate --defer/--retry/--annotate/--backlog/--progress` (apps/warpforge/cli/calibrate_notes.hpp):
// the seed's orchestrate.py notes commands on calibrate/notes.hpp. The engine reads the same file
// when it plans (a deferral sets a parameter aside, a retry brings back one that did not pass),
// so these commands steer the next run without measuring anything themselves.

#include "apps/warpforge/cli/calibrate_notes.hpp"

#include "calibrate/catalog.hpp"
#include "calibrate/engine/calibration_run.hpp"
#include "calibrate/engine/report_files.hpp"
#include "calibrate/notes.hpp"
#include "calibrate/schedule.hpp"
#include "config/toml_reader/placed_error.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <set>

namespace warpforge::cli {

namespace fs = std::filesystem;
namespace cal = warpforge::calibrate;

namespace {

constexpr std::string_view command_name = "warpforge calibrate";

// Empty when `name` is in the catalog, else the line saying so with the closest name.
std::string unknown_name(const cal::catalog& catalog, std::string_view option, const std::string& name) {
  if (catalog.find(name) != nullptr)
    return {};
  std::vector<std::string_view> names;
  for (const auto& p : catalog.parameters())
    names.push_back(p.name);
  std::string line = std::string{option} + ": unknown parameter '" + name + "'";
  if (auto hint = toml_reader::did_you_mean(name, names); !hint.empty())
    line += " (" + hint + ")";
  return line;
}

// The option that names a parameter and the name it gives ("" for --progress).
std::pair<std::string_view, std::string> named_parameter(const calibrate_options& o) {
  if (!o.defer_name.empty())
    return {"--defer", o.defer_name};
  if (!o.retry_name.empty())
    return {"--retry", o.retry_name};
  if (!o.annotate_name.empty())
    return {"--annotate", o.annotate_name};
  if (!o.backlog_name.empty())
    return {"--backlog", o.backlog_name};
  return {"--progress", ""};
}

// Empty when the edit has its text, else the line saying which option is missing.
std::string missing_text(const calibrate_options& o) {
  if (!o.defer_name.empty() && o.reason.empty())
    return "--defer needs --reason TEXT (why it is set aside)";
  if (!o.annotate_name.empty() && o.note.empty())
    return "--annotate needs --note TEXT";
  if (!o.backlog_name.empty() && o.idea.empty())
    return "--backlog needs --idea TEXT";
  return {};
}

// --defer, --retry, --annotate or --backlog on `book`; the line saying what was done.
std::string edit_notes(const calibrate_options& o, cal::notes& book) {
  if (!o.defer_name.empty()) {
    book.defer(o.defer_name, o.reason, o.next_idea);
    return "deferred " + o.defer_name + ": " + o.reason +
           (o.next_idea.empty() ? "" : "; next idea: " + o.next_idea) +
           " (the next run sets it aside until warpforge calibrate --retry " + o.defer_name + ")";
  }
  if (!o.retry_name.empty()) {
    const bool was_deferred = book.is_deferred(o.retry_name);
    book.mark_retry(o.retry_name);
    return "retry " + o.retry_name + ": the next run measures it again" +
           (was_deferred ? " (its deferral ended; kept in its trail)" : "");
  }
  if (!o.annotate_name.empty()) {
    book.annotate(o.annotate_name, o.note);
    return "annotated " + o.annotate_name + " (" + std::to_string(book.find(o.annotate_name)->annotations.size()) +
           " note(s)): " + o.note;
  }
  book.add_backlog(o.backlog_name, o.idea);
  return "added to " + o.backlog_name + "'s backlog (" +
         std::to_string(book.find(o.backlog_name)->backlog.size()) + " idea(s)): " + o.idea;
}

} // namespace
} // namespace warpforge::cli

namespace warpforge::cli {
namespace {

// One parameter in scope and where it stands.
struct progress_row {
  const cal::parameter* what = nullptr;
  std::string state;  // passed | failed | deferred | pending
  std::string detail; // the status and value, or why it is set aside / included
};

// Final results a next run keeps (as the engine's resume does): all but NO_DATA, less what is
// reset or marked for retry.
std::map<std::string, cal::parameter_result> kept_results(std::vector<cal::parameter_result> results,
                                                          const cal::schedule_options& scope,
                                                          const cal::notes& book) {
  std::map<std::string, cal::parameter_result> kept;
  for (auto& r : results) {
    const bool reset = std::find(scope.reset.begin(), scope.reset.end(), r.name) != scope.reset.end();
    if (cal::is_final(r.result) && !reset && !book.retry_requested(r.name))
      kept[r.name] = std::move(r);
  }
  return kept;
}

std::string result_detail(const cal::parameter_result& r) {
  const std::string status{cal::to_string(r.result)};
  if (!r.value)
    return status + ", not measured: " + cal::not_measured_reason(r);
  char value[48];
  std::snprintf(value, sizeof value, " %.6g ", *r.value);
  return status + value + r.unit + (r.notes.empty() ? "" : "; " + r.notes.front());
}

// Each parameter in scope, in the schedule's order: its kept result, else the plan's verdict.
std::vector<progress_row> progress_rows(const cal::catalog& catalog, const cal::schedule_options& scope,
                                        const cal::notes& book,
                                        const std::map<std::string, cal::parameter_result>& kept) {
  std::set<std::string> finished, failed; // as the engine plans: a sound mismatch lets dependents go on
  for (const auto& [name, r] : kept)
    (cal::satisfies_dependents(r.result) ? finished : failed).insert(name);
  std::map<std::string, cal::scheduled> planned;
  for (auto& entry : cal::plan(catalog, scope, book, finished, failed))
    planned[entry.what->name] = entry;
  std::vector<progress_row> rows;
  // With no history and no notes, the plan lists every parameter in scope.
  for (const auto& entry : cal::plan(catalog, scope, cal::notes{}, {}, {})) {
    const std::string& name = entry.what->name;
    if (auto r = kept.find(name); r != kept.end())
      rows.push_back({entry.what, cal::is_passing(r->second.result) ? "passed" : "failed", result_detail(r->second)});
    else if (auto p = planned.find(name); p != planned.end() && p->second.deferred)
      rows.push_back({entry.what, "deferred", p->second.reason});
    else
      rows.push_back({entry.what, "pending", p == planned.end() ? "" : p->second.reason});
  }
  return rows;
}

cal::progress count_rows(const std::vector<progress_row>& rows) {
  cal::progress out;
  out.selected = rows.size();
  for (const auto& row : rows) {
    out.passed += row.state == "passed" ? 1 : 0;
    out.failed += row.state == "failed" ? 1 : 0;
    out.deferred += row.state == "deferred" ? 1 : 0;
    out.pending += row.state == "pending" ? 1 : 0;
  }
  return out;
}

exit_code print_progress(const calibrate_options& o, const cal::catalog& catalog, const cal::notes& book) {
  cal::schedule_options scope{o.max_priority, o.only, o.reset};
  if (const auto problems = cal::check_options(catalog, scope); !problems.empty()) {
    for (const auto& problem : problems)
      std::cerr << command_name << ": " << problem << '\n';
    return exit_code::usage;
  }
  std::vector<cal::parameter_result> results;
  if (!o.resume_dir.empty()) {
    auto read = cal::read_results(o.resume_dir);
    if (!read) {
      std::cerr << command_name << ": " << read.error() << '\n';
      return exit_code::bad_input;
    }
    results = std::move(*read);
  }
  const auto rows = progress_rows(catalog, scope, book, kept_results(std::move(results), scope, book));
  std::printf("%-30s %-3s %-9s %s\n", "parameter", "pri", "state", "detail");
  for (const auto& row : rows)
    std::printf("%-30s %-3u %-9s %s\n", row.what->name.c_str(), row.what->priority, row.state.c_str(),
                row.detail.c_str());
  std::printf("\n%s\n", cal::to_string(count_rows(rows)).c_str());
  return exit_code::ok;
}

} // namespace

bool wants_notes_command(const calibrate_options& o) {
  return o.progress || !o.defer_name.empty() || !o.retry_name.empty() || !o.annotate_name.empty() ||
         !o.backlog_name.empty();
}

exit_code calibrate_notes_command(const calibrate_options& options, const notes_command_files& files) {
  auto catalog = files.catalog.empty() ? cal::catalog::built_in() : cal::catalog::load(files.catalog);
  if (!catalog) {
    std::cerr << command_name << ": " << catalog.error() << '\n';
    return exit_code::bad_input;
  }
  const auto [option, name] = named_parameter(options);
  if (const auto problem = unknown_name(*catalog, option, name); !name.empty() && !problem.empty()) {
    std::cerr << command_name << ": " << problem << "; nothing was changed\n";
    return exit_code::usage;
  }
  if (const auto missing = missing_text(options); !missing.empty()) {
    std::cerr << command_name << ": " << missing << '\n';
    return exit_code::usage;
  }
  auto book = cal::notes::load(files.notes);
  if (!book) {
    std::cerr << command_name << ": notes " << files.notes.string() << ": " << book.error() << '\n';
    return exit_code::bad_input;
  }
  if (options.progress)
    return print_progress(options, *catalog, *book);
  const std::string done = edit_notes(options, *book);
  if (auto saved = book->save(files.notes); !saved) {
    std::cerr << command_name << ": " << saved.error() << '\n';
    return exit_code::failure;
  }
  std::cout << done << "\nnotes: " << files.notes.string() << '\n';
  return exit_code::ok;
}

} // namespace warpforge::cli
