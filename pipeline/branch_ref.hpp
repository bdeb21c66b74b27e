#pragma once
// Which branch a piece of work is about. The ids are the names used in specs and in the store, so
// a message read in a log or on another host means the same thing.

#include <cstdint>
#include <string>

namespace warpforge::pipeline {

/// A branch of one iteration of one job of one campaign. Unused levels stay -1 / empty (a
/// campaign-wide message has only `campaign`; a job's reference kernel has branch -1).
struct branch_ref {
  std::string campaign;         // campaign name
  std::string job;              // job name inside the campaign
  std::int64_t iteration = -1;  // 1-based iteration of the job; -1: none
  std::int64_t branch = -1;     // the branch's ordinal inside its iteration; -1: none
  friend bool operator==(const branch_ref&, const branch_ref&) = default;
};

} // namespace warpforge::pipeline
