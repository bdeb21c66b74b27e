// plan(): select (priority or --only, closed over dependencies), order (Kahn's topological sort,
// the ready parameter with the most urgent effective priority first, then catalog order), then
// set aside what cannot run (its own state, or a dependency set aside), dependencies first.
#include "calibrate/schedule.hpp"

#include "config/toml_reader/placed_error.hpp"

#include <algorithm>
#include <map>
#include <queue>
#include <tuple>

namespace warpforge::calibrate {
namespace {

constexpr std::size_t none = static_cast<std::size_t>(-1);

struct context {
  const catalog& parameters;
  const notes& book;
  std::map<std::string_view, std::size_t> index; // name -> position of its first entry
  std::set<std::string> finished, failed, reset; // results, less what was reset
  std::vector<bool> in_scope;                    // by position
  std::vector<std::size_t> needed_by;            // by position: who pulled it in (--only), or none

  const parameter& at(std::size_t i) const { return parameters.parameters()[i]; }
  std::size_t find(std::string_view name) const {
    auto it = index.find(name);
    return it == index.end() ? none : it->second;
  }
  bool retry(const std::string& name) const {
    return reset.contains(name) || book.retry_requested(name);
  }
};

context make_context(const catalog& parameters, const schedule_options& options, const notes& book,
                     const std::set<std::string>& finished, const std::set<std::string>& failed) {
  context ctx{parameters, book, {}, finished, failed, {}, {}, {}};
  for (std::size_t i = 0; i < parameters.parameters().size(); ++i)
    ctx.index.emplace(parameters.parameters()[i].name, i);
  for (const auto& name : options.reset) {
    ctx.reset.insert(name);
    ctx.finished.erase(name);
    ctx.failed.erase(name);
  }
  return ctx;
}

// In scope: by priority, or the --only names; then everything they depend on, transitively.
void select(context& ctx, const schedule_options& options) {
  const std::size_t count = ctx.parameters.parameters().size();
  ctx.in_scope.assign(count, false);
  ctx.needed_by.assign(count, none);
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < count; ++i) {
    const bool named = std::find(options.only.begin(), options.only.end(), ctx.at(i).name) !=
                       options.only.end();
    if (options.only.empty() ? ctx.at(i).priority <= options.max_priority : named) {
      ctx.in_scope[i] = true;
      pending.push_back(i);
    }
  }
  while (!pending.empty()) {
    const std::size_t i = pending.back();
    pending.pop_back();
    for (const auto& name : ctx.at(i).depends_on) {
      const std::size_t d = ctx.find(name);
      if (d == none || ctx.in_scope[d])
        continue;
      ctx.in_scope[d] = true;
      ctx.needed_by[d] = i;
      pending.push_back(d);
    }
  }
}

// A dependency is as urgent as the most urgent parameter that needs it.
std::vector<std::uint32_t> effective_priorities(const context& ctx) {
  const std::size_t count = ctx.in_scope.size();
  std::vector<std::uint32_t> urgency(count);
  for (std::size_t i = 0; i < count; ++i)
    urgency[i] = ctx.at(i).priority;
  for (bool changed = true; changed;) { // values only fall and are bounded: this ends
    changed = false;
    for (std::size_t i = 0; i < count; ++i)
      for (const auto& name : ctx.at(i).depends_on)
        if (const std::size_t d = ctx.find(name); d != none && urgency[i] < urgency[d]) {
          urgency[d] = urgency[i];
          changed = true;
        }
  }
  return urgency;
}

// Kahn's sort over the unfinished parameters in scope; what a cycle leaves unsorted comes last,
// in catalog order, flagged.
std::vector<std::size_t> order(const context& ctx, std::vector<bool>& in_cycle) {
  const std::size_t count = ctx.in_scope.size();
  const auto urgency = effective_priorities(ctx);
  auto wanted = [&](std::size_t i) { return ctx.in_scope[i] && !ctx.finished.contains(ctx.at(i).name); };
  std::vector<std::size_t> waiting_on(count, 0);
  std::vector<std::vector<std::size_t>> dependents(count);
  for (std::size_t i = 0; i < count; ++i)
    for (const auto& name : ctx.at(i).depends_on)
      if (const std::size_t d = ctx.find(name); wanted(i) && d != none && d != i && wanted(d)) {
        ++waiting_on[i];
        dependents[d].push_back(i);
      }
  using key = std::tuple<std::uint32_t, std::size_t>; // (urgency, catalog position)
  std::priority_queue<key, std::vector<key>, std::greater<>> ready;
  for (std::size_t i = 0; i < count; ++i)
    if (wanted(i) && waiting_on[i] == 0)
      ready.emplace(urgency[i], i);
  std::vector<std::size_t> sorted;
  while (!ready.empty()) {
    const std::size_t i = std::get<1>(ready.top());
    ready.pop();
    sorted.push_back(i);
    for (const std::size_t next : dependents[i])
      if (--waiting_on[next] == 0)
        ready.emplace(urgency[next], next);
  }
  in_cycle.assign(count, false);
  for (std::size_t i = 0; i < count; ++i)
    if (wanted(i) && waiting_on[i] != 0) {
      in_cycle[i] = true;
      sorted.push_back(i);
    }
  return sorted;
}

// Why parameter i cannot be measured now, or "" when it can. `set_aside` holds the verdicts of
// the parameters before it (its dependencies come first).
std::string hold_reason(const context& ctx, std::size_t i, const std::vector<bool>& in_cycle,
                        const std::map<std::size_t, bool>& set_aside) {
  const parameter& p = ctx.at(i);
  if (in_cycle[i])
    return "in a dependency cycle (see the catalog self-check)";
  const bool retry = ctx.retry(p.name);
  if (!retry && ctx.failed.contains(p.name))
    return "did not pass last time; mark it for retry or reset it to measure again";
  if (!retry && ctx.book.is_deferred(p.name)) {
    const auto& d = *ctx.book.find(p.name)->deferred;
    return "deferred: " + d.reason + (d.next_idea.empty() ? "" : "; next idea: " + d.next_idea);
  }
  for (const auto& name : p.depends_on) {
    const std::size_t d = ctx.find(name);
    if (d == none)
      return "depends on unknown parameter '" + name + "'";
    if (auto it = set_aside.find(d); it != set_aside.end() && it->second)
      return "depends on " + name + ", which is set aside";
  }
  return {};
}

std::string run_reason(const context& ctx, std::size_t i) {
  const std::string& name = ctx.at(i).name;
  if (ctx.reset.contains(name))
    return "reset";
  if (ctx.book.retry_requested(name))
    return "retry requested";
  if (ctx.needed_by[i] != none)
    return "needed by " + ctx.at(ctx.needed_by[i]).name;
  return {};
}

} // namespace

std::vector<scheduled> plan(const catalog& parameters, const schedule_options& options,
                            const notes& book, const std::set<std::string>& finished,
                            const std::set<std::string>& failed) {
  context ctx = make_context(parameters, options, book, finished, failed);
  select(ctx, options);
  std::vector<bool> in_cycle;
  std::vector<scheduled> to_run, held;
  std::map<std::size_t, bool> set_aside;
  for (const std::size_t i : order(ctx, in_cycle)) {
    std::string why = hold_reason(ctx, i, in_cycle, set_aside);
    set_aside[i] = !why.empty();
    if (why.empty())
      to_run.push_back({&ctx.at(i), false, run_reason(ctx, i)});
    else
      held.push_back({&ctx.at(i), true, std::move(why)});
  }
  to_run.insert(to_run.end(), std::make_move_iterator(held.begin()),
                std::make_move_iterator(held.end()));
  return to_run;
}

std::vector<std::string> check_options(const catalog& parameters,
                                       const schedule_options& options) {
  std::vector<std::string> problems;
  if (options.max_priority < 1 || options.max_priority > lowest_priority)
    problems.push_back("max_priority " + std::to_string(options.max_priority) +
                       " is outside 1..4");
  std::vector<std::string_view> names;
  for (const auto& p : parameters.parameters())
    names.push_back(p.name);
  auto check = [&](const std::vector<std::string>& list, std::string_view option) {
    for (const auto& name : list)
      if (parameters.find(name) == nullptr) {
        std::string line = std::string{option} + ": unknown parameter '" + name + "'";
        if (auto hint = toml_reader::did_you_mean(name, names); !hint.empty())
          line += " (" + hint + ")";
        problems.push_back(std::move(line));
      }
  };
  check(options.only, "only");
  check(options.reset, "reset");
  return problems;
}

progress summarize(const catalog& parameters, const schedule_options& options, const notes& book,
                   const std::set<std::string>& finished, const std::set<std::string>& failed) {
  context ctx = make_context(parameters, options, book, finished, failed);
  select(ctx, options);
  progress out;
  for (std::size_t i = 0; i < ctx.in_scope.size(); ++i)
    if (ctx.in_scope[i]) {
      ++out.selected;
      out.passed += ctx.finished.contains(ctx.at(i).name) ? 1 : 0;
    }
  for (const auto& entry : plan(parameters, options, book, finished, failed)) {
    const bool failed_itself = ctx.failed.contains(entry.what->name) && !ctx.retry(entry.what->name);
    if (!entry.deferred)
      ++out.pending;
    else if (failed_itself)
      ++out.failed;
    else
      ++out.deferred;
  }
  return out;
}

std::string to_string(const progress& state) {
  return std::to_string(state.passed) + "/" + std::to_string(state.selected) + " passed, " +
         std::to_string(state.failed) + " failed, " + std::to_string(state.deferred) +
         " deferred, " + std::to_string(state.pending) + " pending";
}

} // namespace warpforge::calibrate
