#include "deploy/deploy_records.hpp"

#include "deploy/deploy_journal.hpp"

namespace warpforge::deploy {

namespace fs = std::filesystem;

std::string relative_to_run(const fs::path& run_dir, const fs::path& path) {
  if (run_dir.empty() || path.empty())
    return path.string();
  const auto relative = path.lexically_normal().lexically_relative(run_dir.lexically_normal());
  if (relative.empty() || *relative.begin() == "..")
    return path.string();
  return relative.string();
}

storage::deployment_record deployment_row(const deploy_request& request) {
  storage::deployment_record r;
  r.work_dir = relative_to_run(request.run_dir, request.work_dir);
  r.job = request.job;
  r.champion = request.chosen.label;
  r.given = request.chosen.given;
  r.project = request.target.project.string();
  r.file = request.target.relative_file.string();
  return r;
}

storage::deploy_step_record step_row(const deploy_request& request, std::int64_t seq,
                                     const step_record& record) {
  storage::deploy_step_record r;
  r.work_dir = relative_to_run(request.run_dir, request.work_dir);
  r.seq = seq;
  r.step = std::string{to_string(record.step)};
  r.status = std::string{to_string(record.status)};
  r.detail = record.detail;
  r.seconds = record.seconds;
  r.attempt = record.attempt;
  if (!record.log.empty())
    r.log = relative_to_run(request.run_dir, request.work_dir / record.log);
  return r;
}

storage::deployment_result result_row(const deploy_request& request, const deploy_report& report) {
  storage::deployment_result r;
  r.work_dir = relative_to_run(request.run_dir, request.work_dir);
  r.outcome = std::string{to_string(report.outcome)};
  r.reason = report.reason;
  if (report.before) {
    r.has_before = true;
    r.before_median = report.before->median;
    r.before_spread = report.before->spread;
    r.unit = report.before->unit;
  }
  if (report.after) {
    r.has_after = true;
    r.after_median = report.after->median;
    r.after_spread = report.after->spread;
  }
  return r;
}

std::optional<storage::deployment_result> interrupted_row(const deploy_request& request, const deploy_report& report) {
  if (report.outcome != deploy_outcome::recovered || report.interrupted_work_dir.empty() ||
      fs::weakly_canonical(report.interrupted_run_dir) != fs::weakly_canonical(request.run_dir))
    return std::nullopt;
  storage::deployment_result row;
  row.work_dir = relative_to_run(request.run_dir, report.interrupted_work_dir);
  row.outcome = std::string{to_string(deploy_outcome::interrupted)};
  const std::string how = report.interrupted_reason.empty() ? "killed before it ended" : report.interrupted_reason;
  row.reason = how + " (the recovery in " + relative_to_run(request.run_dir, request.work_dir) + ")";
  return row;
}

feed::event step_event(const step_record& record) {
  feed::event e;
  e.type = feed::event_type::deploy_step;
  e.job = record.job;
  feed::detail d;
  d.add("step", to_string(record.step))
    .add("status", to_string(record.status))
    .add("detail", record.detail.substr(0, 2000))
    .add("seconds", record.seconds)
    .add("attempt", record.attempt)
    .add("log", record.log);
  if (record.timing)
    d.add_raw("timing", timing_json(*record.timing));
  e.detail_json = d.json();
  return e;
}

feed::event finished_event(const deploy_request& request, const deploy_report& report) {
  feed::event e;
  e.type = feed::event_type::deploy_finished;
  e.job = request.job;
  feed::detail d;
  d.add("outcome", to_string(report.outcome))
    .add("reason", report.reason.substr(0, 2000))
    .add("champion", request.chosen.label)
    .add("given", request.chosen.given)
    .add("work_dir", relative_to_run(request.run_dir, request.work_dir));
  if (report.before)
    d.add("before_median", report.before->median).add("before_spread", report.before->spread)
      .add("unit", report.before->unit);
  if (report.after)
    d.add("after_median", report.after->median).add("after_spread", report.after->spread);
  if (report.kernels)
    d.add_raw("kernels", comparison_json(*report.kernels));
  e.detail_json = d.json();
  return e;
}

} // namespace warpforge::deploy
