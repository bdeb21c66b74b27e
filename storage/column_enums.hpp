#pragma once
// The enums that the database stores as text (state, kind, outcome and mode columns), and that
// text. The text is the on-disk format: renaming a value needs a migration that rewrites the
// column; adding a value needs none (the columns have no CHECK list, the C++ side validates).
// Each enum has to_string, from_string<E> (nullopt for unknown text), and all_<enum>s in
// declaration order.

#include <array>
#include <optional>
#include <string_view>

namespace warpforge::storage {

template <class Enum>
std::optional<Enum> from_string(std::string_view text);

/// campaigns.state
enum class campaign_state {
  created,     ///< the run directory and database exist; nothing has run yet
  running,     ///< the scheduler is handing out work
  finished,    ///< every job reached an end (finished or failed)
  failed,      ///< the campaign stopped on an error (campaigns.reason says which)
  interrupted, ///< stopped by a signal or a crash; can be resumed
};
inline constexpr std::array all_campaign_states{
    campaign_state::created, campaign_state::running, campaign_state::finished,
    campaign_state::failed, campaign_state::interrupted};
/// True for the states that set finished_at: finished, failed, interrupted.
bool is_terminal(campaign_state state);

/// jobs.state
enum class job_state {
  pending,     ///< not started
  running,     ///< iterating
  finished,    ///< reached its goal or its budget
  failed,      ///< stopped on an error (jobs.reason)
  interrupted, ///< stopped by a signal or a crash; can be resumed
};
inline constexpr std::array all_job_states{job_state::pending, job_state::running,
                                           job_state::finished, job_state::failed,
                                           job_state::interrupted};

/// iterations.state
enum class iteration_state {
  running,     ///< branches are being proposed, built or measured
  finished,    ///< a champion was elected (or none beat the previous one)
  failed,      ///< the iteration could not complete (e.g. the proposer failed)
  interrupted, ///< stopped by a signal or a crash
};
inline constexpr std::array all_iteration_states{iteration_state::running,
                                                 iteration_state::finished,
                                                 iteration_state::failed,
                                                 iteration_state::interrupted};

/// branches.kind
enum class branch_kind {
  branch,   ///< a proposed variant
  ablation, ///< the champion with one claimed method left out
  baseline, ///< the starting kernel, measured for reference
};
inline constexpr std::array all_branch_kinds{branch_kind::branch, branch_kind::ablation,
                                             branch_kind::baseline};

/// branches.outcome (NULL while the branch is still in the pipeline)
enum class branch_outcome {
  passed,        ///< compiled, correct, measured
  compile_error, ///< NVRTC/nvcc rejected the source
  sass_rejected, ///< the SASS failed a signature check
  incorrect,     ///< ran, but the output differs from the reference
  runtime_error, ///< faulted, or the runner crashed
  timeout,       ///< exceeded its deadline
  not_run,       ///< skipped (e.g. a duplicate of an earlier branch)
  not_supported, ///< needs what this GPU or toolkit lacks
  interrupted,   ///< the campaign stopped while this branch was in flight
};
inline constexpr std::array all_branch_outcomes{
    branch_outcome::passed,        branch_outcome::compile_error, branch_outcome::sass_rejected,
    branch_outcome::incorrect,     branch_outcome::runtime_error, branch_outcome::timeout,
    branch_outcome::not_run,       branch_outcome::not_supported, branch_outcome::interrupted};

/// measurements.mode
enum class measurement_mode {
  warm, ///< caches warm: back-to-back launches
  cold, ///< L2 flushed before each launch
};
inline constexpr std::array all_measurement_modes{measurement_mode::warm, measurement_mode::cold};

/// artifacts.kind
enum class artifact_kind {
  source,      ///< a kernel source (.cu)
  compile_log, ///< compiler output
  ptx,         ///< PTX text
  cubin,       ///< compiled binary
  sass,        ///< disassembly
  metrics,     ///< profiler counters
  prompt,      ///< a prompt sent to the LLM
  response,    ///< the LLM's reply
  report,      ///< summary.md, exports, simulator configs
  log,         ///< a component's log file
};
inline constexpr std::array all_artifact_kinds{
    artifact_kind::source,  artifact_kind::compile_log, artifact_kind::ptx,
    artifact_kind::cubin,   artifact_kind::sass,        artifact_kind::metrics,
    artifact_kind::prompt,  artifact_kind::response,    artifact_kind::report,
    artifact_kind::log};

std::string_view to_string(campaign_state value);
std::string_view to_string(job_state value);
std::string_view to_string(iteration_state value);
std::string_view to_string(branch_kind value);
std::string_view to_string(branch_outcome value);
std::string_view to_string(measurement_mode value);
std::string_view to_string(artifact_kind value);

template <>
std::optional<campaign_state> from_string<campaign_state>(std::string_view text);
template <>
std::optional<job_state> from_string<job_state>(std::string_view text);
template <>
std::optional<iteration_state> from_string<iteration_state>(std::string_view text);
template <>
std::optional<branch_kind> from_string<branch_kind>(std::string_view text);
template <>
std::optional<branch_outcome> from_string<branch_outcome>(std::string_view text);
template <>
std::optional<measurement_mode> from_string<measurement_mode>(std::string_view text);
template <>
std::optional<artifact_kind> from_string<artifact_kind>(std::string_view text);

} // namespace warpforge::storage
