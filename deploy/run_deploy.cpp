#include "deploy/run_deploy.hpp"

#include "deploy/deploy_marker.hpp"
#include "deploy/deploy_session.hpp"
#include "deploy/program_timing.hpp"
#include "deploy/project_guard.hpp"
#include "deploy/regions/region_markers.hpp"
#include "deploy/source_splice.hpp"
#include "foundation/files/atomic_write.hpp"
#include "gpu/compile/compile_cache.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace warpforge::deploy {

namespace fs = std::filesystem;

namespace {

using clock = deploy_session::clock;

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", fraction * 100.0);
  return text;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

bool fsync_path(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0)
    return false;
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  return synced;
}

journal_header header_of(const deploy_request& request) {
  journal_header h;
  h.job = request.job;
  h.champion = request.chosen.label;
  h.given = request.chosen.given;
  if (request.chosen.given)
    h.choice = "a person chose this source (--source): the gain gate was skipped";
  h.run_dir = request.run_dir;
  h.project = request.target.project;
  h.file = request.target.relative_file;
  return h;
}

// One deploy, step by step; each step returns whether the deploy goes on.
class deploy_run {
public:
  deploy_run(const deploy_request& request, deploy_sink& sink)
      : request_(request), target_(request.target),
        session_(request.target, request.job, request.work_dir, header_of(request), sink) {}

  deploy_report run() {
    if (auto skipped = gate())
      return session_.finish(skipped->first, skipped->second);
    if (auto why = lock())
      return session_.finish(why->first, why->second);
    if (!build_original() || !baseline() || !backup() || !mark_written()) {
      session_.unlock();
      return session_.finish(deploy_outcome::failed, reason_);
    }
    if (!write(champion_text(request_.chosen, target_.region), deploy_step::write) ||
        !build_champion() || !verify() || !time_champion() || !decide())
      return roll_back();
    if (!session_.unlock())
      return session_.finish(deploy_outcome::failed, "accepted, but the marker stays: " +
                                                       session_.report().steps.back().detail);
    return session_.finish(deploy_outcome::accepted, "");
  }

private:
  using stop = std::optional<std::pair<deploy_outcome, std::string>>;

  stop gate() {
    const auto began = clock::now();
    const auto& chosen = request_.chosen;
    if (chosen.own_launch) {
      const std::string why =
        "the champion " + chosen.label + " brings its own launch geometry (a code variant); the "
        "project launches the kernel with the problem's geometry, so it cannot be deployed there";
      session_.record(deploy_step::gate, step_status::refused, why, began);
      return std::pair{deploy_outcome::refused, why};
    }
    if (chosen.given) {
      session_.record(deploy_step::gate, step_status::passed,
                      "a person chose " + chosen.label + " (--source): the gain gate is skipped", began);
      return std::nullopt;
    }
    const std::string gain = "standalone gain " + percent(chosen.standalone_gain) + " of " +
                             chosen.label + ", threshold " + percent(target_.gain_threshold);
    if (chosen.standalone_gain < target_.gain_threshold) {
      session_.record(deploy_step::gate, step_status::skipped, gain + ": below it, nothing to deploy", began);
      return std::pair{deploy_outcome::skipped, gain + ": below the threshold"};
    }
    session_.record(deploy_step::gate, step_status::passed, gain, began);
    return std::nullopt;
  }

  stop lock() {
    const auto began = clock::now();
    // The write-only-inside rule, before anything is written (the spec reader checked it once;
    // a link may have been planted since, or the target built by hand).
    if (auto why = outside_target_reason(target_, target_.file); !why.empty()) {
      session_.record(deploy_step::lock, step_status::refused, why, began);
      return std::pair{deploy_outcome::refused, why};
    }
    auto original = read_bytes(target_.file);
    if (!original) {
      const std::string why = "cannot read the target file " + target_.file.string();
      session_.record(deploy_step::lock, step_status::failed, why, began);
      return std::pair{deploy_outcome::failed, why};
    }
    original_ = std::move(*original);
    // The region's markers, checked before the lock: a missing, duplicated or nested marker is
    // refused here with its file and line, and nothing is locked, built or written.
    if (!target_.region.empty())
      if (auto region = find_region(original_, target_.region, target_.file.string()); !region) {
        session_.record(deploy_step::lock, step_status::refused, region.error(), began);
        return std::pair{deploy_outcome::refused, region.error()};
      }
    marker_ = deploy_marker{request_.job, request_.run_dir, request_.work_dir, target_.relative_file,
                            backup_path(), request_.chosen.label, this_process(),
                            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(),
                            marker_stage::locked, gpu::cache_detail::sha256_hex(original_)};
    auto created = write_inside_project(target_, marker_path(target_), project_write::create_exclusive,
                                        marker_json(marker_));
    if (!created) {
      const bool held = created.error().exists;
      const std::string why = held ? held_reason() : created.error().message;
      session_.record(deploy_step::lock, held ? step_status::refused : step_status::failed, why, began);
      return std::pair{held ? deploy_outcome::refused : deploy_outcome::failed, why};
    }
    session_.record(deploy_step::lock, step_status::passed, "created " + marker_path(target_).string(), began);
    return std::nullopt;
  }

  // Why the marker another deploy left stops this one: running (pid N) while its process lives,
  // `--recover` only once it is gone.
  std::string held_reason() const {
    const auto file = marker_path(target_);
    auto held = read_bytes(file);
    expected<deploy_marker, std::string> other = unexpected{"cannot read " + file.string()};
    if (held)
      other = parse_marker(*held, file.string());
    if (!other)
      return "a deploy marker holds " + target_.project.string() + " but " + other.error() +
             ": if no deploy is running there, remove it by hand once the project is as it should be";
    return held_message(*other, target_.project, liveness_of(other->owner));
  }

  // The marker, replaced whole, says the deploy reached `stage` before the step that needs it.
  bool advance(marker_stage stage) {
    marker_.stage = stage;
    auto replaced = write_inside_project(target_, marker_path(target_), project_write::replace, marker_json(marker_));
    if (!replaced)
      reason_ = "the marker cannot say the deploy is " + std::string{to_string(stage)} + ": " + replaced.error().message;
    return static_cast<bool>(replaced);
  }

  fs::path backup_path() const { return request_.work_dir / "backup" / target_.relative_file; }

  bool build_original() {
    const auto began = clock::now();
    auto build = session_.run(deploy_step::build_original, target_.build, target_.build_timeout);
    if (!build.result.succeeded()) {
      reason_ = "the original does not build: `" + target_.build + "` " +
                build.result.how_it_ended(target_.build_timeout) + "; its output ends:\n" +
                output_tail(build.result.output);
      session_.record(deploy_step::build_original, step_status::failed, reason_, began, build.log);
      return false;
    }
    session_.record(deploy_step::build_original, step_status::passed, "the original builds", began, build.log);
    return true;
  }

  bool baseline() {
    if (!timing(deploy_step::baseline, before_))
      return false;
    if (!before_->kernels) // RESULT timing: say from here on that no other kernel is timed
      session_.report().kernels = untimed_kernels();
    return true;
  }
  bool time_champion() { return timing(deploy_step::time, after_); }

  bool timing(deploy_step step, std::optional<timed_program>& into) {
    const auto began = clock::now();
    auto timed = time_program(target_, request_.work_dir / "logs", to_string(step));
    if (!timed) {
      reason_ = (step == deploy_step::baseline ? "the original's timing failed: " : "the champion's timing failed: ") +
                timed.error();
      session_.record(step, step_status::failed, reason_, began);
      return false;
    }
    into = *timed;
    const auto& named = timed->named;
    (step == deploy_step::baseline ? session_.report().before : session_.report().after) = named;
    session_.record(step, step_status::passed,
                    "median " + number(named.median) + " " + named.unit + ", spread " + number(named.spread) +
                      " over " + std::to_string(named.samples.size()) + " runs" +
                      (timed->kernels ? "; " + std::to_string(timed->kernels->by_kernel.size()) +
                                          " kernel(s) launched, all kernels median " +
                                          number(timed->kernels->total.median) + " s"
                                      : ""),
                    began, "logs/" + std::string{to_string(step)} + "-<n>", named);
    return true;
  }

  bool backup() {
    const auto began = clock::now();
    const auto file = backup_path();
    auto written = files::write_file_atomically(file, original_);
    const bool synced = written && fsync_path(file, O_RDONLY) && fsync_path(file.parent_path(), O_RDONLY | O_DIRECTORY);
    auto back = read_bytes(file);
    if (!written || !synced || !back || *back != original_) {
      reason_ = "the backup " + file.string() + " " +
                (!written ? "cannot be written: " + written.error()
                          : !synced ? std::string{"cannot be synced to disk"} : std::string{"does not read back identical"});
      session_.record(deploy_step::backup, step_status::failed, reason_, began);
      return false;
    }
    if (!advance(marker_stage::backed_up)) {
      session_.record(deploy_step::backup, step_status::failed, reason_, began);
      return false;
    }
    session_.record(deploy_step::backup, step_status::passed,
                    "copied " + target_.relative_file.string() + " (" + std::to_string(original_.size()) +
                      " bytes) to " + file.string(),
                    began);
    return true;
  }

  // Before the first byte of the target changes, the marker says the champion may be in it
  // (recover() then restores the backup); until then it says the file was never written.
  bool mark_written() {
    const auto began = clock::now();
    if (advance(marker_stage::written))
      return true;
    reason_ += "; nothing was written";
    session_.record(deploy_step::write, step_status::failed, reason_, began);
    return false;
  }

  // Writes `inner` (defines and the champion's part) into the target; `step`: write or fix_build.
  bool write(const std::string& inner, deploy_step step) {
    const auto began = clock::now();
    auto text = splice(original_, target_.region, inner, target_.file.string());
    if (!text) {
      reason_ = text.error();
      session_.record(step, step_status::failed, reason_, began);
      return false;
    }
    written_inner_ = inner;
    const auto copy = request_.work_dir / "written" / target_.relative_file.filename();
    (void)files::write_file_atomically(copy, *text); // what was written, for the run directory
    session_.report().written = copy;
    auto done = write_inside_project(target_, target_.file, project_write::replace, *text);
    if (!done) {
      reason_ = done.error().message;
      session_.record(step, step_status::failed, reason_, began);
      return false;
    }
    session_.record(step, step_status::passed,
                    "wrote " + request_.chosen.label + " into " + target_.relative_file.string() +
                      (target_.region.empty() ? "" : " (region " + target_.region + ")") + ", " +
                      std::to_string(request_.chosen.defines.size()) + " define(s)",
                    began);
    return true;
  }

  bool build_champion() {
    for (int fixes = 0;; ++fixes) {
      const auto began = clock::now();
      auto build = session_.run(deploy_step::build, target_.build, target_.build_timeout);
      if (build.result.succeeded()) {
        session_.record(deploy_step::build, step_status::passed, "the champion builds", began, build.log);
        return true;
      }
      reason_ = "the champion does not build: `" + target_.build + "` " +
                build.result.how_it_ended(target_.build_timeout) + "; its output ends:\n" +
                output_tail(build.result.output);
      session_.record(deploy_step::build, step_status::failed, reason_, began, build.log);
      if (!request_.fix_build || fixes >= request_.fix_tries)
        return false;
      const auto asked = clock::now();
      auto fixed = request_.fix_build(build.result.output, written_inner_);
      if (!fixed) {
        session_.record(deploy_step::fix_build, step_status::failed, "no correction was proposed", asked);
        return false;
      }
      // A correction that repeats the region's markers brings its region only (markers nest never).
      if (!target_.region.empty())
        if (auto inner = region_content(*fixed, target_.region))
          fixed = std::move(inner);
      if (!write(*fixed, deploy_step::fix_build))
        return false;
    }
  }

  bool verify() {
    const auto began = clock::now();
    auto check = session_.run(deploy_step::verify, target_.verify, target_.run_timeout);
    if (!check.result.succeeded()) {
      reason_ = "verification failed: `" + target_.verify + "` " + check.result.how_it_ended(target_.run_timeout) +
                "; its output ends:\n" + output_tail(check.result.output);
      session_.record(deploy_step::verify, step_status::failed, reason_, began, check.log);
      return false;
    }
    session_.record(deploy_step::verify, step_status::passed, "the program's own check passed", began, check.log);
    return true;
  }

  // Accepted only if the deploy's value got faster beyond the noise of both timings AND (observed
  // timing) no other kernel got slower beyond its own noise AND the program's total kernel time
  // did not grow: a shared #define can slow the named kernel's neighbours (kernel_times.hpp).
  bool decide() {
    const auto began = clock::now();
    const auto& before = before_->named;
    const auto& after = after_->named;
    const double gain = before.median - after.median;
    const double noise = std::max(before.spread, after.spread);
    const std::string numbers = before.unit + " " + number(before.median) + " -> " + number(after.median) +
                                " (" + (before.median > 0 ? percent(-gain / before.median) : "?") +
                                "), noise " + number(noise);
    std::string every_kernel; // observed timing: each kernel's before and after, for the record
    std::string others_slower;
    std::string launches_differ; // the program launched other work: its times compare nothing
    if (before_->kernels && after_->kernels) {
      auto& comparison = session_.report().kernels;
      comparison = compare_kernels(*before_->kernels, *after_->kernels);
      for (const auto& line : comparison_lines(*comparison))
        every_kernel += "\n  " + line;
      for (const auto* slower : slower_others(*comparison))
        others_slower += (others_slower.empty() ? "" : "; ") + change_text(*slower);
      for (const auto* changed : launches_changed(*comparison))
        launches_differ += (launches_differ.empty() ? "" : "; ") + launches_text(*changed);
      if (total_grew(*comparison))
        others_slower += std::string{others_slower.empty() ? "" : "; "} + "the program's total kernel time grew: " +
                         change_text(*comparison->total);
    }
    const bool named_faster = after.median < before.median && gain > noise;
    if (named_faster && others_slower.empty() && launches_differ.empty()) {
      session_.record(deploy_step::decide, step_status::passed,
                      "faster: " + numbers + (every_kernel.empty() ? "" : "; every kernel:" + every_kernel), began);
      return true;
    }
    if (!launches_differ.empty())
      reason_ = "the program launched other work after the deploy: " + launches_differ + " over " +
                std::to_string(before.samples.size()) + " runs; its times compare nothing";
    else if (!named_faster)
      reason_ = (after.median > before.median ? "regression: " : "no measurable gain: ") + numbers;
    else
      reason_ = "other kernels got slower: " + others_slower + " (the deployed kernel: " + numbers +
                "); a #define the kernels share changes them all";
    session_.record(deploy_step::decide, step_status::failed,
                    reason_ + (every_kernel.empty() ? "" : "; every kernel:" + every_kernel), began);
    return false;
  }

  deploy_report roll_back() {
    const std::string why = reason_;
    if (!session_.restore(original_))
      return session_.finish(deploy_outcome::failed,
                             why + "; the restore failed, the backup is " + backup_path().string() +
                               " and the marker stays: run warpforge deploy --recover");
    if (!session_.rebuild(true)) {
      const auto& last = session_.report().steps.back();
      if (last.step == deploy_step::rebuild) // the original no longer builds: keep the lock
        return session_.finish(deploy_outcome::failed,
                               why + "; the original is restored but does not build, the marker stays: "
                                     "fix the build, then run warpforge deploy --recover");
      session_.unlock();
      return session_.finish(deploy_outcome::rolled_back,
                             why + " (the restored original fails its own check too)");
    }
    if (!session_.unlock())
      return session_.finish(deploy_outcome::failed, why + "; restored, but the marker stays");
    return session_.finish(deploy_outcome::rolled_back, why);
  }

  const deploy_request& request_;
  const deploy_target& target_;
  deploy_session session_;
  deploy_marker marker_;       // as written into the project: its stage advances
  std::string original_;       // the target file's bytes before the deploy
  std::string written_inner_;  // what went into the region (or the file) last
  std::string reason_;         // why the last failed step failed
  std::optional<timed_program> before_, after_;
};

} // namespace

deploy_report run_deploy(const deploy_request& request, deploy_sink& sink) {
  return deploy_run{request, sink}.run();
}

} // namespace warpforge::deploy
