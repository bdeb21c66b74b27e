#pragma once
// Identifies what a message is about. Ids are the names used in specs and in the store, so a
// message read in a log or on another host means the same thing.

#include <caf/meta/type_name.hpp>

#include <cstdint>
#include <string>

namespace warpforge::messages {

/// A branch of one iteration of one job of one campaign. Unused levels stay -1 / empty
/// (a campaign-wide message has only `campaign`).
struct branch_ref {
  std::string campaign;       // campaign name
  std::string job;            // job name inside the campaign
  std::int64_t iteration = -1; // 0-based iteration of the job; -1: none
  std::int64_t branch = -1;    // 0-based branch of the iteration; -1: none
  friend bool operator==(const branch_ref&, const branch_ref&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, branch_ref& x) {
  return f(caf::meta::type_name("branch_ref"), x.campaign, x.job, x.iteration, x.branch);
}

} // namespace warpforge::messages
