#include "calibrate/engine/work_queue.hpp"

#include <algorithm>

namespace warpforge::calibrate {

work_queue::work_queue(std::vector<scheduled> plan, std::set<std::string> passed_before,
                       std::set<std::string> failed_before)
    : passed_before_(std::move(passed_before)), failed_before_(std::move(failed_before)) {
  for (auto& item : plan) {
    entry e;
    e.what = item.what;
    if (item.deferred)
      e.deferred_reason = item.reason.empty() ? std::string{"deferred by the plan"} : item.reason;
    entries_.push_back(std::move(e));
  }
}

const work_queue::entry* work_queue::find(std::string_view name) const {
  for (const auto& e : entries_)
    if (e.what->name == name)
      return &e;
  return nullptr;
}

std::optional<std::string> work_queue::dependency_problem(const entry& e, bool& blocked) const {
  for (const auto& dependency : e.what->depends_on) {
    if (const auto* d = find(dependency)) {
      if (d->now == state::failed)
        return "dependency " + dependency + " did not pass in this run";
      if (d->now != state::passed)
        blocked = true;
      continue;
    }
    if (failed_before_.count(dependency) > 0 && passed_before_.count(dependency) == 0)
      return "dependency " + dependency + " did not pass in an earlier run";
    // Not part of this run and never failed (a priority left out, or measured before): the
    // benchmark does not wait for it.
  }
  return std::nullopt;
}

std::optional<queue_item> work_queue::take_ready() {
  for (auto& e : entries_) {
    if (e.now != state::waiting)
      continue;
    if (!e.deferred_reason.empty()) {
      e.now = state::failed;
      return queue_item{e.what, e.deferred_reason};
    }
    bool blocked = false;
    if (auto problem = dependency_problem(e, blocked)) {
      e.now = state::failed;
      return queue_item{e.what, *problem};
    }
    if (!blocked) {
      e.now = state::running;
      return queue_item{e.what, {}};
    }
  }
  return std::nullopt;
}

std::optional<queue_item> work_queue::take() {
  if (stopped_)
    return std::nullopt;
  if (auto item = take_ready())
    return item;
  if (waiting() > 0 && running() == 0) {
    // Waiting entries that nothing running can release: only a dependency cycle does that
    // (the catalog's self-check rejects one); hand them out as deferred rather than wait forever.
    for (auto& e : entries_)
      if (e.now == state::waiting) {
        e.now = state::failed;
        return queue_item{e.what, "its dependencies form a cycle"};
      }
  }
  return std::nullopt;
}

void work_queue::finish(std::string_view name, bool passed) {
  for (auto& e : entries_)
    if (e.what->name == name && e.now == state::running)
      e.now = passed ? state::passed : state::failed;
}

void work_queue::stop() {
  stopped_ = true;
}

std::size_t work_queue::waiting() const {
  return static_cast<std::size_t>(
    std::count_if(entries_.begin(), entries_.end(), [](const entry& e) { return e.now == state::waiting; }));
}

std::size_t work_queue::running() const {
  return static_cast<std::size_t>(
    std::count_if(entries_.begin(), entries_.end(), [](const entry& e) { return e.now == state::running; }));
}

} // namespace warpforge::calibrate
