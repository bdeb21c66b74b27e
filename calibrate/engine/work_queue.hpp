#pragma once
// The parameters of a run, handed to the GPU workers in plan order as they become ready: a
// parameter is ready once each parameter it depends on has passed (in this run or an earlier
// one), or is no part of this run and never failed. A parameter whose dependency did not pass is
// handed out as deferred (with the reason) rather than measured, and counts as not passed for its
// own dependents. Thread-safe: one worker thread per GPU calls next() and finish().
//
//   work_queue queue{plan(...), passed_before, failed_before};
//   while (auto item = queue.next()) { ...; queue.finish(item->what->name, passed); }

#include "calibrate/catalog.hpp"
#include "calibrate/schedule.hpp"

#include <condition_variable>
#include <cstddef>
#include <mutex>
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

  /// The next ready (or deferred) parameter; blocks while none is ready and another is being
  /// measured; nullopt once every parameter was handed out and nothing more can come, or after stop().
  std::optional<queue_item> next();
  /// Reports a handed-out parameter's end; wakes the workers waiting for it.
  void finish(std::string_view name, bool passed);
  /// next() answers nullopt from now on (an interrupt); parameters in flight still finish.
  void stop();

  /// Parameters not yet handed out.
  std::size_t waiting() const;

private:
  enum class state { waiting, running, passed, failed };
  struct entry {
    const parameter* what = nullptr;
    state now = state::waiting;
    std::string deferred_reason; // the plan's own deferral, handed out as is
  };

  // Under mutex_: the first entry to hand out, or nullopt when none is ready yet.
  std::optional<queue_item> take_ready();
  // Why `e` cannot run (a dependency did not pass), or nullopt; sets `blocked` when one is pending.
  std::optional<std::string> dependency_problem(const entry& e, bool& blocked) const;
  const entry* find(std::string_view name) const;
  bool any_running() const;
  std::size_t count_waiting() const; // under mutex_

  std::vector<entry> entries_; // plan order
  std::set<std::string> passed_before_;
  std::set<std::string> failed_before_;
  bool stopped_ = false;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
};

} // namespace warpforge::calibrate
