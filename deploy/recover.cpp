#include "deploy/deploy_marker.hpp"
#include "deploy/deploy_session.hpp"
#include "deploy/run_deploy.hpp"

namespace warpforge::deploy {

namespace fs = std::filesystem;

namespace {

journal_header recovery_header(const deploy_target& target, const deploy_marker& marker) {
  journal_header h;
  h.job = marker.job;
  h.champion = marker.champion;
  h.choice = "recovery of the deploy started in " + marker.work_dir.string();
  h.run_dir = marker.run_dir;
  h.project = target.project;
  h.file = target.relative_file;
  return h;
}

} // namespace

deploy_report recover(const deploy_target& target, const fs::path& work_dir, deploy_sink& sink,
                      std::string_view job) {
  using clock = deploy_session::clock;
  const auto began = clock::now();
  const auto marker_file = marker_path(target);
  std::error_code ec;
  if (!fs::exists(marker_file, ec)) {
    deploy_report report;
    report.outcome = deploy_outcome::nothing_to_recover;
    report.reason = "no deploy marker in " + target.project.string() + ": nothing to recover";
    return report;
  }
  auto text = read_bytes(marker_file);
  expected<deploy_marker, std::string> marker =
    unexpected{"cannot read " + marker_file.string()};
  if (text)
    marker = parse_marker(*text, marker_file.string());
  deploy_session session{target, marker ? marker->job : std::string{job}, work_dir,
                         marker ? recovery_header(target, *marker) : journal_header{}, sink};
  auto fail = [&](std::string why) {
    session.record(deploy_step::restore, step_status::failed, why, began);
    return session.finish(deploy_outcome::failed, why);
  };
  if (!marker)
    return fail(marker.error() + "; remove it by hand once the project is as it should be");
  if (marker->file != target.relative_file)
    return fail("the marker names " + marker->file.string() + ", the deploy target is " +
                target.relative_file.string() + ": recover with the spec that deployed it");
  auto original = read_bytes(marker->backup);
  if (!original)
    return fail("the backup " + marker->backup.string() + " cannot be read; the marker stays");
  if (!session.restore(*original))
    return session.finish(deploy_outcome::failed, "the restore failed; the marker stays");
  if (!session.rebuild(false))
    return session.finish(deploy_outcome::failed,
                          "restored, but the original does not build; the marker stays");
  if (!session.unlock())
    return session.finish(deploy_outcome::failed, "restored and rebuilt; the marker stays");
  auto report = session.finish(deploy_outcome::recovered,
                               "the original of the deploy from " + marker->run_dir.string() + " is back");
  report.interrupted_run_dir = marker->run_dir;
  report.interrupted_work_dir = marker->work_dir;
  return report;
}

} // namespace warpforge::deploy
