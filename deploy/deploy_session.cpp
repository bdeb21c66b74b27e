#include "deploy/deploy_session.hpp"

#include "deploy/project_guard.hpp"

#include <fstream>
#include <sstream>

namespace warpforge::deploy {

namespace fs = std::filesystem;

std::optional<std::string> read_bytes(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  if (!in)
    return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad())
    return std::nullopt;
  return text.str();
}

deploy_session::deploy_session(const deploy_target& target, std::string job, fs::path work_dir,
                               journal_header header, deploy_sink& sink)
    : target_(target), job_(std::move(job)), work_dir_(std::move(work_dir)),
      journal_(work_dir_, std::move(header)), sink_(sink) {
  report_.journal = journal_.path();
}

void deploy_session::record(deploy_step step, step_status status, std::string detail,
                            clock::time_point began, std::string log,
                            std::optional<timing_summary> timing) {
  step_record r;
  r.job = job_;
  r.step = step;
  r.status = status;
  r.detail = std::move(detail);
  r.seconds = std::chrono::duration<double>(clock::now() - began).count();
  r.attempt = std::max<std::int64_t>(1, attempt_of(step));
  r.log = std::move(log);
  r.timing = std::move(timing);
  if (auto kept = journal_.add(r); !kept) // the sink has the record; say the journal lacks it
    r.detail += " (journal: " + kept.error() + ")";
  report_.steps.push_back(r);
  sink_.step(r);
}

std::int64_t deploy_session::attempt_of(deploy_step step) const {
  auto it = runs_.find(step);
  return it == runs_.end() ? 0 : it->second;
}

deploy_session::ran deploy_session::run(deploy_step step, const std::string& command,
                                        std::chrono::seconds limit) {
  const auto n = ++runs_[step];
  const std::string log =
    (fs::path{"logs"} / (std::string{to_string(step)} + "-" + std::to_string(n) + ".log")).string();
  return {run_in_project(target_.project, command, limit, work_dir_ / log), log, n};
}

bool deploy_session::restore(const std::string& original) {
  const auto began = clock::now();
  auto written = write_inside_project(target_, target_.file, project_write::replace, original);
  if (!written) {
    record(deploy_step::restore, step_status::failed, written.error().message, began);
    return false;
  }
  auto back = read_bytes(target_.file);
  if (!back || *back != original) {
    record(deploy_step::restore, step_status::failed,
           target_.file.string() + " does not read back as the original's bytes", began);
    return false;
  }
  record(deploy_step::restore, step_status::passed,
         "the original " + target_.relative_file.string() + " is back, " +
           std::to_string(original.size()) + " bytes, identical",
         began);
  return true;
}

bool deploy_session::rebuild(bool verify) {
  auto began = clock::now();
  auto build = run(deploy_step::rebuild, target_.build, target_.build_timeout);
  if (!build.result.succeeded()) {
    record(deploy_step::rebuild, step_status::failed,
           "`" + target_.build + "` " + build.result.how_it_ended(target_.build_timeout) +
             "; its output ends:\n" + output_tail(build.result.output),
           began, build.log);
    return false;
  }
  record(deploy_step::rebuild, step_status::passed, "the original builds", began, build.log);
  if (!verify)
    return true;
  began = clock::now();
  auto check = run(deploy_step::reverify, target_.verify, target_.run_timeout);
  const bool passed = check.result.succeeded();
  record(deploy_step::reverify, passed ? step_status::passed : step_status::failed,
         passed ? "the original passes its check"
                : "`" + target_.verify + "` " + check.result.how_it_ended(target_.run_timeout) +
                    "; its output ends:\n" + output_tail(check.result.output),
         began, check.log);
  return passed;
}

bool deploy_session::unlock() {
  const auto began = clock::now();
  auto removed = write_inside_project(target_, marker_path(target_), project_write::remove);
  record(deploy_step::unlock, removed ? step_status::passed : step_status::failed,
         removed ? "removed " + marker_path(target_).string() : removed.error().message, began);
  return static_cast<bool>(removed);
}

deploy_report deploy_session::finish(deploy_outcome outcome, std::string reason) {
  report_.outcome = outcome;
  report_.reason = std::move(reason);
  if (report_.kernels)
    journal_.set_kernels(comparison_json(*report_.kernels));
  (void)journal_.finish(outcome, report_.reason); // each step's write already said if it fails
  return report_;
}

} // namespace warpforge::deploy
