#include "messages/outcome.hpp"

namespace warpforge::messages {

std::string_view to_string(branch_outcome outcome) {
  switch (outcome) {
    case branch_outcome::passed: return "passed";
    case branch_outcome::compile_error: return "compile_error";
    case branch_outcome::sass_rejected: return "sass_rejected";
    case branch_outcome::incorrect: return "incorrect";
    case branch_outcome::runtime_error: return "runtime_error";
    case branch_outcome::timeout: return "timeout";
    case branch_outcome::not_run: return "not_run";
    case branch_outcome::not_supported: return "not_supported";
    case branch_outcome::interrupted: return "interrupted";
  }
  return "unknown";
}

std::optional<branch_outcome> branch_outcome_from_string(std::string_view text) {
  for (auto outcome : all_branch_outcomes)
    if (to_string(outcome) == text)
      return outcome;
  return std::nullopt;
}

} // namespace warpforge::messages
