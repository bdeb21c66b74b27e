#include "deploy/plan_from_run.hpp"

#include "deploy/champion.hpp"

#include <ctime>
#include <utility>
#include <vector>

namespace warpforge::deploy {

namespace fs = std::filesystem;

namespace {

// The job named, or the only one whose problem declares [deploy]; with its target.
expected<std::pair<storage::job_row, deploy_target>, std::string> job_and_target(const deploy_choice& choice) {
  auto jobs = run_jobs(choice.run_dir);
  if (!jobs)
    return unexpected{jobs.error()};
  std::vector<std::pair<storage::job_row, deploy_target>> deployable;
  std::string names;
  for (const auto& job : *jobs) {
    names += (names.empty() ? "" : ", ") + job.name;
    if (!choice.job.empty() && job.name != choice.job)
      continue;
    auto target = load_deploy_target(job.problem_path);
    if (!target)
      return unexpected{job.problem_path + ": its [deploy] table is wrong:\n" + toml_reader::to_string(target.error())};
    if (!*target) {
      if (!choice.job.empty())
        return unexpected{"job '" + job.name + "': its problem " + job.problem_path +
                          " has no [deploy] table: nothing says where its champion goes"};
      continue;
    }
    deployable.emplace_back(job, std::move(**target));
  }
  if (!choice.job.empty() && deployable.empty())
    return unexpected{"no job '" + choice.job + "' in " + choice.run_dir.string() + " (its jobs: " +
                      (names.empty() ? "none" : names) + ")"};
  if (deployable.size() != 1)
    return unexpected{(deployable.empty() ? std::string{"no job of "} : std::string{"several jobs of "}) +
                      choice.run_dir.string() + " declare [deploy] (its jobs: " + names + "): name one with --job"};
  return std::move(deployable.front());
}

} // namespace

fs::path fresh_work_dir(const fs::path& run_dir, std::string_view job, std::chrono::system_clock::time_point now) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  const fs::path base = run_dir / "deploy" / std::string{job};
  fs::path dir = base / stamp;
  for (int n = 2; fs::exists(dir); ++n)
    dir = base / (std::string{stamp} + "-" + std::to_string(n));
  return dir;
}

expected<deploy_request, std::string> plan_deploy(const deploy_choice& choice, std::chrono::system_clock::time_point now) {
  auto found = job_and_target(choice);
  if (!found)
    return unexpected{found.error()};
  auto& [job, target] = *found;
  auto chosen = choice.source.empty() ? load_champion(choice.run_dir, job.name) : given_champion(choice.source);
  if (!chosen)
    return unexpected{chosen.error()};
  deploy_request request;
  request.target = std::move(target);
  request.chosen = std::move(*chosen);
  request.job = job.name;
  request.run_dir = choice.run_dir;
  request.work_dir = fresh_work_dir(choice.run_dir, job.name, now);
  return request;
}

expected<deploy_request, std::string> plan_recovery(const deploy_choice& choice, std::chrono::system_clock::time_point now) {
  auto found = job_and_target(choice);
  if (!found)
    return unexpected{found.error()};
  auto& [job, target] = *found;
  deploy_request request;
  request.target = std::move(target);
  request.chosen.label = "recovery";
  request.job = job.name;
  request.run_dir = choice.run_dir;
  request.work_dir = fresh_work_dir(choice.run_dir, job.name, now);
  return request;
}

} // namespace warpforge::deploy
