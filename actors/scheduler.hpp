#pragma once
// scheduler: plans, dispatches, records — nothing else. The campaign's flow is the campaign
// engine's (pipeline/campaign_engine.hpp); this actor carries its orders to the stages (the
// compilers, the SASS checker, the proposer, the GPU workers, the profiler), brings the answers
// back, and sends the rows and events it returns to the store and the feed.
//
// Every order is a request. One that fails (its actor crashed and is being restarted by the
// supervisor) is sent again after a short delay to whatever actor is registered under that name
// then, so a crash costs time, never a branch. Store writes are keyed and idempotent, so they are
// repeated the same way. Restarted itself, the scheduler is handed the plan again by the campaign
// actor and rebuilds every job from the store (what has an outcome is replayed, the rest rebuilt).

#include "actors/ask.hpp"
#include "config/campaign_spec.hpp"
#include "messages/scheduler.hpp"
#include "pipeline/campaign_engine.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::actors {

inline constexpr std::string_view scheduler_name = "scheduler";

struct scheduler_options {
  std::size_t compilers = 1;                         // compiler actors: "compile.0" ..., and as
                                                     // many SASS checkers: "sass.0" ...
  std::chrono::milliseconds tick{500};               // how often budgets and idle GPUs are looked at
  std::chrono::milliseconds retry_delay{200};        // before repeating an order whose actor failed
  std::filesystem::path tuner_cache;                 // the cross-run result cache; empty: none
  std::shared_ptr<const config::campaign_spec> spec; // the campaign as the command parsed it,
                                                     // never parsed again (required)
};

struct scheduler_state {
  static inline const char* name = "scheduler";

  scheduler_options options;
  std::optional<messages::campaign_plan> plan;
  std::unique_ptr<pipeline::campaign_engine> engine;
  std::vector<caf::typed_response_promise<pipeline::campaign_result>> waiting; // hear the end
  std::chrono::steady_clock::time_point started;
  pending_asks asks;                          // orders out, and those to send again
  std::size_t writes_in_flight = 0;           // store writes not yet acknowledged
  std::size_t next_compiler = 0;
  std::size_t next_sass_checker = 0;
  std::vector<std::string> failed_jobs;       // jobs whose problem could not be opened

  /// The engine for `plan` over the spec of `options`: its jobs opened (a job that cannot be is
  /// recorded failed), started afresh or from `earlier`. Throws std::logic_error without a spec,
  /// or when the plan's text is not the spec's (a broken invariant: the actors run the spec).
  void begin(const messages::campaign_plan& plan, const std::optional<pipeline::earlier_run>& earlier,
             std::vector<pipeline::store_write>& failures, std::vector<feed::event>& failure_events);
  messages::component_status status() const;
};

messages::scheduler_actor::behavior_type
scheduler(messages::scheduler_actor::stateful_pointer<scheduler_state> self, scheduler_options options);

} // namespace warpforge::actors
