#pragma once
// The parameters of a run, handed out in plan order as they become ready: a parameter is ready
// once each parameter it depends on has passed (in this run or an earlier one), or is no part of
// this run and never failed. A parameter whose dependency did not pass is handed out as deferred
// (with the reason) rather than measured, and counts as not passed for its own dependents.
// Single-threaded and never blocking: whoever drives the run (calibration_run) asks again after
// each finish().
//
//   work_queue queue{plan(...), passed_before, failed_before};
//   while (auto item = queue.take()) { ...; queue.finish(item->what->name, passed); }
//   // nullopt with queue.running() > 0: wait for a finish, then take() again

#include "calibrate/catalog.hpp"
#include "calibrate/schedule.hpp"

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::calibrate {

struct queue_item {
  const parameter* what = nullptr;
  std::string deferred_reason; // non-empty: not to be measured now, and why
};

class work_queue {
public:
  /// `plan` in order (calibrate/schedule.hpp); `passed_before` / `failed_before`: names an
  /// earlier run (a resume) or the notes already settled.
  work_queue(std::vector<scheduled> plan, std::set<std::string> passed_before, std::set<std::string> failed_before);

  /// The next ready (or deferred) parameter; nullopt when none is ready now (each waiting one
  /// waits for one still running), when nothing is left, or after stop().
  std::optional<queue_item> take();
  /// Reports a handed-out parameter's end: its dependents may become ready.
  void finish(std::string_view name, bool passed);
  /// take() answers nullopt from now on (an interrupt); parameters in flight still finish.
  void stop();

  /// Parameters not yet handed out.
  std::size_t waiting() const;
  /// Parameters handed out to be measured and not finished.
  std::size_t running() const;

private:
  enum class state { waiting, running, passed, failed };
  struct entry {
    const parameter* what = nullptr;
    state now = state::waiting;
    std::string deferred_reason; // the plan's own deferral, handed out as is
  };

  // The first entry to hand out, or nullopt when none is ready yet.
  std::optional<queue_item> take_ready();
  // Why `e` cannot run (a dependency did not pass), or nullopt; sets `blocked` when one is pending.
  std::optional<std::string> dependency_problem(const entry& e, bool& blocked) const;
  const entry* find(std::string_view name) const;

  std::vector<entry> entries_; // plan order
  std::set<std::string> passed_before_;
  std::set<std::string> failed_before_;
  bool stopped_ = false;
};

} // namespace warpforge::calibrate
