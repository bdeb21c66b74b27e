#pragma once
// campaign: owns the campaign's and its jobs' rows and the campaign's events. For a plan from the
// command line it finds the campaign in the run directory's store (a resume, or itself restarted
// after a crash) or records it and its jobs, marks it running, hands the plan to the scheduler,
// and records how it ended: the state, the reason, and the campaign_* event with the usage
// figures (GPU busy as kernel time over wall time, worker occupancy, waits for compiles).
//
// Every step is a request repeated after a delay when its actor is down, like the scheduler's.
//
// The spec is the one the command parsed, handed over at spawn (shared, immutable) and never parsed
// again here: the plan's `spec_toml` is only the text recorded in the campaign's row, and a plan
// whose text is not that spec's is refused as a broken invariant.

#include "actors/ask.hpp"
#include "config/campaign_spec.hpp"
#include "messages/campaign.hpp"
#include "report/campaign_report.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <functional>
#include <optional>
#include <vector>

namespace warpforge::actors {

inline constexpr std::string_view campaign_name = "campaign";

struct campaign_state {
  static inline const char* name = "campaign";

  std::chrono::milliseconds retry_delay{200};
  std::optional<messages::campaign_plan> plan;  // with its rows' ids once recorded
  std::map<caf::actor_addr, caf::typed_response_promise<pipeline::campaign_result>> waiting; // one per asker
  std::optional<pipeline::campaign_result> result; // once the scheduler answered
  bool interrupt_asked = false;
  pending_asks asks;                           // requests out, and those to send again
  std::shared_ptr<const config::campaign_spec> spec; // as the command parsed it

  /// Takes `plan` as the campaign's; throws std::logic_error without a spec or when the plan's
  /// text is not the spec's (the campaign and scheduler actors run the spec, not the text).
  void take(messages::campaign_plan plan);
  /// The rows an earlier recording left in the store (none: record them now).
  static std::optional<messages::campaign_plan> with_stored_ids(messages::campaign_plan plan,
                                                                const config::campaign_spec& spec,
                                                                const report::campaign_report& stored);
  messages::component_status status() const;
};

/// `spec`: the campaign as the command parsed it (required: the first plan is refused without it).
messages::campaign_actor::behavior_type
campaign(messages::campaign_actor::stateful_pointer<campaign_state> self,
         std::shared_ptr<const config::campaign_spec> spec);

} // namespace warpforge::actors
