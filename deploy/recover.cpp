#include "deploy/deploy_marker.hpp"
#include "deploy/deploy_session.hpp"
#include "deploy/run_deploy.hpp"
#include "gpu/compile/compile_cache.hpp"

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

std::string short_hash(const std::string& hex) { return hex.substr(0, 12); }

// Why --recover leaves a marker whose owner may still be deploying; "" when the owner is dead.
std::string owner_refusal(const deploy_marker& marker, const deploy_target& target) {
  switch (liveness_of(marker.owner)) {
    case owner_liveness::dead:
      return {};
    case owner_liveness::alive:
      return "a deploy by " + owner_text(marker) + " is running; nothing was changed (it deploys " + marker.job +
             " from " + marker.run_dir.string() + " into " + target.project.string() +
             "; --recover is for a deploy that was killed)";
    case owner_liveness::elsewhere:
      return "a deploy by " + owner_text(marker) + " holds " + target.project.string() +
             "; whether it still runs cannot be checked from " + this_host() +
             "; nothing was changed: once it has ended, run warpforge deploy --recover on " + marker.owner.host;
  }
  return "unknown owner";
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
  if (auto why = owner_refusal(*marker, target); !why.empty()) {
    session.record(deploy_step::restore, step_status::refused, why, began);
    return session.finish(deploy_outcome::refused, why);
  }

  // The owner is dead. What it left depends on how far it got (the marker's stage) and on what
  // the target file holds now, by the hash of the original recorded at lock.
  const auto& file = target.relative_file;
  const auto current = read_bytes(target.file);
  const bool original_in_place = current && !marker->original_sha256.empty() &&
                                 gpu::cache_detail::sha256_hex(*current) == marker->original_sha256;
  const std::string stage{to_string(marker->stage)};
  auto recovered = [&](std::string reason, std::string interrupted) {
    if (!session.unlock())
      return session.finish(deploy_outcome::failed, reason + "; the marker stays");
    auto report = session.finish(deploy_outcome::recovered, std::move(reason));
    report.interrupted_run_dir = marker->run_dir;
    report.interrupted_work_dir = marker->work_dir;
    report.interrupted_reason = std::move(interrupted);
    return report;
  };

  if (marker->stage != marker_stage::written) {
    // Killed before its first write: the file is as the deploy found it, or as a person has made
    // it since; either way nothing of the deploy is in it, and the backup is not needed.
    const std::string found =
      original_in_place ? file.string() + " still holds the original (sha256 " + short_hash(marker->original_sha256) + ")"
                        : file.string() + " changed since the deploy locked it, not by the deploy: left as it is";
    session.record(deploy_step::restore, step_status::skipped,
                   "the deploy was killed at stage " + stage + ", before it wrote " + file.string() + "; " + found,
                   began);
    return recovered("the deploy from " + marker->run_dir.string() + " was killed before it wrote " + file.string() +
                       "; the project is unlocked",
                     "killed before it ended (stage " + stage + "), before it wrote " + file.string());
  }

  if (original_in_place) {
    // Put back before the kill (or killed before the first write was done): only the build may
    // still be the champion's. A missing backup does not matter then.
    session.record(deploy_step::restore, step_status::skipped,
                   file.string() + " already holds the original (sha256 " + short_hash(marker->original_sha256) +
                     "): nothing to restore",
                   began);
  } else {
    auto original = read_bytes(marker->backup);
    if (!original)
      return fail("the backup " + marker->backup.string() + " cannot be read and " + file.string() +
                  " is not the original; the marker stays");
    if (!marker->original_sha256.empty() && gpu::cache_detail::sha256_hex(*original) != marker->original_sha256)
      return fail("the backup " + marker->backup.string() + " is not the original the deploy locked (sha256 " +
                  short_hash(marker->original_sha256) + "); the marker stays");
    if (!session.restore(*original))
      return session.finish(deploy_outcome::failed, "the restore failed; the marker stays");
  }
  if (!session.rebuild(false))
    return session.finish(deploy_outcome::failed,
                          "restored, but the original does not build; the marker stays");
  return recovered("the original of the deploy from " + marker->run_dir.string() + " is back",
                   "killed before it ended; its original was put back");
}

} // namespace warpforge::deploy
