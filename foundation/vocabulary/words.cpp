#include "foundation/vocabulary/artifact_kind.hpp"
#include "foundation/vocabulary/branch.hpp"
#include "foundation/vocabulary/enum_text.hpp"
#include "foundation/vocabulary/states.hpp"
#include "foundation/vocabulary/timing_mode.hpp"

namespace warpforge::vocabulary {
namespace {

constexpr enum_word<campaign_state> campaign_state_names[] = {
    {campaign_state::created, "created"},
    {campaign_state::running, "running"},
    {campaign_state::finished, "finished"},
    {campaign_state::failed, "failed"},
    {campaign_state::interrupted, "interrupted"},
};

constexpr enum_word<job_state> job_state_names[] = {
    {job_state::pending, "pending"},
    {job_state::running, "running"},
    {job_state::finished, "finished"},
    {job_state::failed, "failed"},
    {job_state::interrupted, "interrupted"},
};

constexpr enum_word<iteration_state> iteration_state_names[] = {
    {iteration_state::running, "running"},
    {iteration_state::finished, "finished"},
    {iteration_state::failed, "failed"},
    {iteration_state::interrupted, "interrupted"},
};

constexpr enum_word<branch_kind> branch_kind_names[] = {
    {branch_kind::branch, "branch"},
    {branch_kind::ablation, "ablation"},
    {branch_kind::baseline, "baseline"},
};

constexpr enum_word<branch_outcome> branch_outcome_names[] = {
    {branch_outcome::passed, "passed"},
    {branch_outcome::compile_error, "compile_error"},
    {branch_outcome::sass_rejected, "sass_rejected"},
    {branch_outcome::incorrect, "incorrect"},
    {branch_outcome::runtime_error, "runtime_error"},
    {branch_outcome::timeout, "timeout"},
    {branch_outcome::not_run, "not_run"},
    {branch_outcome::not_supported, "not_supported"},
    {branch_outcome::interrupted, "interrupted"},
    {branch_outcome::inconsistent, "inconsistent"},
    {branch_outcome::suspicious, "suspicious"},
};

constexpr enum_word<timing_mode> timing_mode_names[] = {
    {timing_mode::warm, "warm"},
    {timing_mode::cold, "cold"},
};

constexpr enum_word<artifact_kind> artifact_kind_names[] = {
    {artifact_kind::source, "source"},
    {artifact_kind::compile_log, "compile_log"},
    {artifact_kind::ptx, "ptx"},
    {artifact_kind::cubin, "cubin"},
    {artifact_kind::sass, "sass"},
    {artifact_kind::metrics, "metrics"},
    {artifact_kind::prompt, "prompt"},
    {artifact_kind::response, "response"},
    {artifact_kind::report, "report"},
    {artifact_kind::log, "log"},
};

// A value added to an enum but not to its table would be stored as "unknown"; a word twice
// would read back as the wrong value.
static_assert(covers(campaign_state_names, all_campaign_states));
static_assert(covers(job_state_names, all_job_states));
static_assert(covers(iteration_state_names, all_iteration_states));
static_assert(covers(branch_kind_names, all_branch_kinds));
static_assert(covers(branch_outcome_names, all_branch_outcomes));
static_assert(covers(timing_mode_names, all_timing_modes));
static_assert(covers(artifact_kind_names, all_artifact_kinds));

} // namespace

bool is_terminal(campaign_state state) {
  return state == campaign_state::finished || state == campaign_state::failed ||
         state == campaign_state::interrupted;
}

std::string_view to_string(campaign_state value) { return word_of(campaign_state_names, value); }
std::string_view to_string(job_state value) { return word_of(job_state_names, value); }
std::string_view to_string(iteration_state value) { return word_of(iteration_state_names, value); }
std::string_view to_string(branch_kind value) { return word_of(branch_kind_names, value); }
std::string_view to_string(branch_outcome value) { return word_of(branch_outcome_names, value); }
std::string_view to_string(timing_mode value) {
  return word_of(timing_mode_names, value);
}
std::string_view to_string(artifact_kind value) { return word_of(artifact_kind_names, value); }

template <>
std::optional<campaign_state> from_string<campaign_state>(std::string_view text) {
  return value_of(campaign_state_names, text);
}
template <>
std::optional<job_state> from_string<job_state>(std::string_view text) {
  return value_of(job_state_names, text);
}
template <>
std::optional<iteration_state> from_string<iteration_state>(std::string_view text) {
  return value_of(iteration_state_names, text);
}
template <>
std::optional<branch_kind> from_string<branch_kind>(std::string_view text) {
  return value_of(branch_kind_names, text);
}
template <>
std::optional<branch_outcome> from_string<branch_outcome>(std::string_view text) {
  return value_of(branch_outcome_names, text);
}
template <>
std::optional<timing_mode> from_string<timing_mode>(std::string_view text) {
  return value_of(timing_mode_names, text);
}
template <>
std::optional<artifact_kind> from_string<artifact_kind>(std::string_view text) {
  return value_of(artifact_kind_names, text);
}

} // namespace warpforge::vocabulary
