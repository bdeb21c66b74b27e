#pragma once
// Where a campaign, a job and an iteration stand: the state columns of the store, and the states
// the scheduler and the campaign actor move them through.

#include "foundation/vocabulary/enum_text.hpp"

#include <array>

namespace warpforge::vocabulary {

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

std::string_view to_string(campaign_state value);
std::string_view to_string(job_state value);
std::string_view to_string(iteration_state value);

template <>
std::optional<campaign_state> from_string<campaign_state>(std::string_view text);
template <>
std::optional<job_state> from_string<job_state>(std::string_view text);
template <>
std::optional<iteration_state> from_string<iteration_state>(std::string_view text);

} // namespace warpforge::vocabulary
