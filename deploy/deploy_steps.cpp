#include "deploy/deploy_steps.hpp"

#include "foundation/vocabulary/enum_text.hpp"

namespace warpforge::deploy {

constexpr vocabulary::enum_word<deploy_step> deploy_step_words[] = {
    {deploy_step::gate, "gate"},
    {deploy_step::lock, "lock"},
    {deploy_step::build_original, "build_original"},
    {deploy_step::baseline, "baseline"},
    {deploy_step::backup, "backup"},
    {deploy_step::write, "write"},
    {deploy_step::build, "build"},
    {deploy_step::fix_build, "fix_build"},
    {deploy_step::verify, "verify"},
    {deploy_step::time, "time"},
    {deploy_step::decide, "decide"},
    {deploy_step::restore, "restore"},
    {deploy_step::rebuild, "rebuild"},
    {deploy_step::reverify, "reverify"},
    {deploy_step::unlock, "unlock"},
};
static_assert(vocabulary::covers(deploy_step_words, all_deploy_steps));

std::string_view to_string(deploy_step step) { return vocabulary::word_of(deploy_step_words, step); }

std::optional<deploy_step> deploy_step_from_string(std::string_view text) {
  return vocabulary::value_of(deploy_step_words, text);
}

constexpr vocabulary::enum_word<step_status> step_status_words[] = {
    {step_status::passed, "passed"},
    {step_status::failed, "failed"},
    {step_status::skipped, "skipped"},
    {step_status::refused, "refused"},
};
static_assert(vocabulary::covers(step_status_words, all_step_statuses));

std::string_view to_string(step_status status) { return vocabulary::word_of(step_status_words, status); }

std::optional<step_status> step_status_from_string(std::string_view text) {
  return vocabulary::value_of(step_status_words, text);
}

constexpr vocabulary::enum_word<deploy_outcome> deploy_outcome_words[] = {
    {deploy_outcome::accepted, "accepted"},
    {deploy_outcome::rolled_back, "rolled_back"},
    {deploy_outcome::skipped, "skipped"},
    {deploy_outcome::failed, "failed"},
    {deploy_outcome::refused, "refused"},
    {deploy_outcome::recovered, "recovered"},
    {deploy_outcome::nothing_to_recover, "nothing_to_recover"},
    {deploy_outcome::interrupted, "interrupted"},
};
static_assert(vocabulary::covers(deploy_outcome_words, all_deploy_outcomes));

std::string_view to_string(deploy_outcome outcome) { return vocabulary::word_of(deploy_outcome_words, outcome); }

std::optional<deploy_outcome> deploy_outcome_from_string(std::string_view text) {
  return vocabulary::value_of(deploy_outcome_words, text);
}

} // namespace warpforge::deploy
