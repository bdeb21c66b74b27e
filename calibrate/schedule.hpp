#pragma once
// The schedule of a calibrate run: which parameters to measure, in which order, and which are set
// aside and why (the seed's orchestrate.py). The engine asks again after every result, so a
// parameter whose dependency fails in this run is set aside at the next ask.
//
//   auto next = plan(catalog, {.max_priority = 3}, notes, passed, not_passed);
//   for (const auto& entry : next) if (!entry.deferred) { measure(*entry.what); break; }
//
// Order: priority, then dependencies first, then catalog order. A parameter's priority counts as
// the most urgent of everything that depends on it, so a dependency is measured just before what
// needs it rather than at the end of its own priority.

#include "calibrate/catalog.hpp"
#include "calibrate/notes.hpp"

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace warpforge::calibrate {

struct schedule_options {
  std::uint32_t max_priority = lowest_priority; // measure priorities 1..max_priority (--max-priority)
  std::vector<std::string> only{};  // non-empty: just these (whatever their priority) and what
                                    // they depend on (--only)
  std::vector<std::string> reset{}; // forget these names' earlier results (passed or not) and
                                    // any deferral: measure them again (--reset)
};

struct scheduled {
  const parameter* what = nullptr; // into the catalog given to plan()
  bool deferred = false;           // set aside: not to be measured in this plan
  std::string reason;              // why set aside; for one to measure, why it is included when
                                   // that is not plain ("retry requested", "needed by l1_size")
};

/// The parameters to measure now, in order, followed by those set aside (deferred = true), each
/// with its reason. `finished`: names whose last result passed (left out of the plan). `failed`:
/// names measured before without passing; they are set aside until notes.mark_retry or a reset,
/// and so is everything that depends on them. A deferral in `notes`, an unknown dependency or a
/// dependency cycle also sets a parameter aside, and with it its dependents.
std::vector<scheduled> plan(const catalog& parameters, const schedule_options& options,
                            const notes& book, const std::set<std::string>& finished,
                            const std::set<std::string>& failed);

/// Problems of the options against the catalog, one line each: an unknown name in only or reset
/// (with a "did you mean"), max_priority outside 1..4. Empty when they are sound.
std::vector<std::string> check_options(const catalog& parameters, const schedule_options& options);

/// Where a run stands over the parameters the options select (--progress).
struct progress {
  std::size_t selected = 0; // parameters in scope
  std::size_t passed = 0;   // last result passed
  std::size_t failed = 0;   // measured, did not pass, no retry requested
  std::size_t deferred = 0; // set aside otherwise (notes, a dependency, a cycle)
  std::size_t pending = 0;  // still to measure

  bool operator==(const progress&) const = default;
};

progress summarize(const catalog& parameters, const schedule_options& options, const notes& book,
                   const std::set<std::string>& finished, const std::set<std::string>& failed);

/// "12/30 passed, 2 failed, 1 deferred, 15 pending".
std::string to_string(const progress& state);

} // namespace warpforge::calibrate
