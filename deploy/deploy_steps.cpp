#include "deploy/deploy_steps.hpp"

namespace warpforge::deploy {

namespace {

template <class Enum, std::size_t N>
std::optional<Enum> find_by_name(std::string_view text, const Enum (&all)[N]) {
  for (auto value : all)
    if (to_string(value) == text)
      return value;
  return std::nullopt;
}

} // namespace

std::string_view to_string(deploy_step step) {
  switch (step) {
    case deploy_step::gate: return "gate";
    case deploy_step::lock: return "lock";
    case deploy_step::build_original: return "build_original";
    case deploy_step::baseline: return "baseline";
    case deploy_step::backup: return "backup";
    case deploy_step::write: return "write";
    case deploy_step::build: return "build";
    case deploy_step::fix_build: return "fix_build";
    case deploy_step::verify: return "verify";
    case deploy_step::time: return "time";
    case deploy_step::decide: return "decide";
    case deploy_step::restore: return "restore";
    case deploy_step::rebuild: return "rebuild";
    case deploy_step::reverify: return "reverify";
    case deploy_step::unlock: return "unlock";
  }
  return "?";
}

std::optional<deploy_step> deploy_step_from_string(std::string_view text) {
  return find_by_name(text, all_deploy_steps);
}

std::string_view to_string(step_status status) {
  switch (status) {
    case step_status::passed: return "passed";
    case step_status::failed: return "failed";
    case step_status::skipped: return "skipped";
    case step_status::refused: return "refused";
  }
  return "?";
}

std::optional<step_status> step_status_from_string(std::string_view text) {
  return find_by_name(text, all_step_statuses);
}

std::string_view to_string(deploy_outcome outcome) {
  switch (outcome) {
    case deploy_outcome::accepted: return "accepted";
    case deploy_outcome::rolled_back: return "rolled_back";
    case deploy_outcome::skipped: return "skipped";
    case deploy_outcome::failed: return "failed";
    case deploy_outcome::refused: return "refused";
    case deploy_outcome::recovered: return "recovered";
    case deploy_outcome::nothing_to_recover: return "nothing_to_recover";
    case deploy_outcome::interrupted: return "interrupted";
  }
  return "?";
}

std::optional<deploy_outcome> deploy_outcome_from_string(std::string_view text) {
  return find_by_name(text, all_deploy_outcomes);
}

} // namespace warpforge::deploy
