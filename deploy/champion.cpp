#include "deploy/champion.hpp"

#include "pipeline/records.hpp"
#include "report/stored_run.hpp"

#include <simdjson.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

namespace warpforge::deploy {

namespace fs = std::filesystem;

namespace {

struct found_champion {
  storage::iteration_row iteration;
  storage::branch_row branch;
  std::int64_t kth_branch = 0; // its place among the iteration's kind-branch rows: its proposal
  double time_s = 0;
};

std::optional<double> best_time(storage::database& db, storage::row_id branch) {
  auto measurements = db.load_measurements(branch);
  std::optional<double> best;
  if (measurements)
    for (const auto& m : *measurements)
      if (!best || m.median_s < *best)
        best = m.median_s;
  return best;
}

// Every iteration's champion, keeping the fastest.
expected<std::optional<found_champion>, std::string> fastest_champion(storage::database& db,
                                                                      storage::row_id job) {
  auto iterations = db.load_iterations(job);
  if (!iterations)
    return unexpected{storage::to_string(iterations.error())};
  std::optional<found_champion> best;
  for (const auto& iteration : *iterations) {
    if (!iteration.champion_branch_id)
      continue;
    auto branches = db.load_branches(iteration.id);
    if (!branches)
      return unexpected{storage::to_string(branches.error())};
    std::int64_t k = 0;
    for (const auto& branch : *branches) {
      const bool proposed = branch.kind == vocabulary::branch_kind::branch;
      if (branch.id == *iteration.champion_branch_id)
        if (auto time = best_time(db, branch.id); time && (!best || *time < best->time_s))
          best = found_champion{iteration, branch, proposed ? k : -1, *time};
      if (proposed)
        ++k;
    }
  }
  return best;
}

// The measured time of the job's baseline branch (first iteration's kind-baseline row).
std::optional<double> baseline_time(storage::database& db, storage::row_id job) {
  auto iterations = db.load_iterations(job);
  if (!iterations)
    return std::nullopt;
  for (const auto& iteration : *iterations)
    if (auto branches = db.load_branches(iteration.id))
      for (const auto& branch : *branches)
        if (branch.kind == vocabulary::branch_kind::baseline)
          if (auto time = best_time(db, branch.id))
            return time;
  return std::nullopt;
}

std::vector<std::pair<std::string, std::int64_t>> defines_of(std::string_view json) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  if (parser.parse(simdjson::padded_string{json}).get(object) != simdjson::SUCCESS)
    return out;
  for (auto field : object)
    if (std::int64_t v = 0; field.value.get(v) == simdjson::SUCCESS)
      out.emplace_back(std::string{field.key}, v);
  return out;
}

std::optional<std::string> read_text(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  if (!in)
    return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A proposed branch's candidate (its own defines and launch) from the iteration's proposal.json.
void add_candidate_facts(const fs::path& run_dir, std::string_view job, const found_champion& found,
                         champion& out) {
  if (found.kth_branch < 0)
    return;
  auto kept = pipeline::read_proposal(run_dir, std::string{job}, found.iteration.number);
  if (!kept || !*kept || static_cast<std::size_t>(found.kth_branch) >= (*kept)->candidates.size())
    return;
  const auto& c = (*kept)->candidates[static_cast<std::size_t>(found.kth_branch)];
  out.own_launch = c.launch.has_value();
  // defines_json already holds what the branch was compiled with (a model's own defines among
  // them): add only what an older run's row left out.
  for (const auto& [name, value] : c.defines)
    if (std::none_of(out.defines.begin(), out.defines.end(), [&](const auto& d) { return d.first == name; }))
      out.defines.emplace_back(name, value);
}

} // namespace

expected<std::vector<storage::job_row>, std::string> run_jobs(const fs::path& run_dir) {
  auto run = report::open_stored_run(run_dir);
  if (!run)
    return unexpected{storage::to_string(run.error())};
  return std::move(run->summary.jobs);
}

expected<champion, std::string> load_champion(const fs::path& run_dir, std::string_view job) {
  auto run = report::open_stored_run(run_dir);
  if (!run)
    return unexpected{storage::to_string(run.error())};
  auto& db = run->db;
  const auto& dir = run->dir;
  const storage::job_row* row = nullptr;
  std::string names;
  for (const auto& j : run->summary.jobs) {
    names += (names.empty() ? "" : ", ") + j.name;
    if (j.name == job)
      row = &j;
  }
  if (row == nullptr)
    return unexpected{"no job '" + std::string{job} + "' in " + run_dir.string() + " (its jobs: " +
                      (names.empty() ? "none" : names) + ")"};
  auto found = fastest_champion(db, row->id);
  if (!found)
    return unexpected{found.error()};
  if (!*found) // a measured baseline that nothing beat is not "no branch passed"
    return unexpected{"job '" + std::string{job} + "' in " + run_dir.string() + " has no champion: " +
                      (baseline_time(db, row->id) ? "no branch beat its baseline, still the best the run found"
                                                  : "no branch of it passed and was measured")};
  const auto& best = **found;
  champion out;
  out.source_path = best.branch.source_path;
  auto source = read_text(dir.path() / best.branch.source_path);
  if (!source)
    return unexpected{"the champion's source " + (dir.path() / best.branch.source_path).string() +
                      " cannot be read"};
  out.source = std::move(*source);
  out.defines = defines_of(best.branch.defines_json);
  out.label = "iter-" + std::to_string(best.iteration.number) + "/branch-" + std::to_string(best.branch.ordinal);
  out.time_s = best.time_s;
  out.baseline_time_s = row->baseline_time_s.value_or(0);
  if (out.baseline_time_s <= 0) // a job row without it: the baseline branch's own measurement
    if (auto baseline = baseline_time(db, row->id))
      out.baseline_time_s = *baseline;
  if (out.baseline_time_s > 0 && out.time_s > 0)
    out.standalone_gain = out.baseline_time_s / out.time_s - 1.0;
  add_candidate_facts(dir.path(), job, best, out);
  return out;
}

expected<champion, std::string> given_champion(const fs::path& source_file) {
  auto source = read_text(source_file);
  if (!source)
    return unexpected{"cannot read the source " + source_file.string()};
  champion out;
  out.source = std::move(*source);
  out.label = source_file.string();
  out.given = true;
  return out;
}

} // namespace warpforge::deploy
