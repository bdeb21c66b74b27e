#pragma once
// The feed's noun: one event of the pipeline, as published on ZeroMQ and stored in SQLite.
// docs/events.md is the contract for monitors: envelope fields, every type and its detail fields.
//
// Producers build the type-specific part with `detail`:
//   event e{.seq = 7, .ts = now_s, .type = event_type::actor_restarted, .campaign = "nightly",
//           .detail_json = detail{}.add("actor", "llm").add("attempt", 3).add("delay_s", 0.2).json()};

#include "foundation/json/writer.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace warpforge::feed {

/// Version of the envelope and detail fields. Adding a field keeps it; renaming or removing a
/// field, or changing its type or unit, bumps it (docs/events.md, "Versioning").
inline constexpr int event_schema_version = 1;

/// Every kind of event. The string form is both the ZeroMQ topic and the JSON "type"; related
/// events share a prefix ("branch_", "job_") so that a prefix subscription selects a family.
enum class event_type : std::uint8_t {
  campaign_started,     // the campaign began (or resumed)
  campaign_finished,    // every job ended; the summary is written
  campaign_failed,      // the campaign cannot go on (fatal error)
  campaign_interrupted, // stopped by a signal or a crash while work was in flight; resumable
  job_started,          // a job (problem or catalog slice) began
  job_finished,         // a job ended normally (converged, out of budget or out of patience)
  job_failed,           // a job cannot go on (its baseline fails, its spec is wrong...)
  iteration_started,    // an optimisation iteration of a job began
  iteration_finished,   // an iteration ended (its champion, if any, is known)
  diagnosis_ready,      // roofline gaps and rule findings for the current champion
  branch_proposed,      // a candidate variant was proposed (llm | tune | replay)
  branch_compiled,      // a candidate compiled
  branch_checked,       // SASS and correctness checks passed
  branch_measured,      // a candidate was timed on a GPU
  branch_failed,        // a candidate ended without a measurement (its outcome says why)
  champion_elected,     // a new best variant for a job
  ablation_measured,    // a leave-one-out variant of the champion was timed
  llm_call,             // the proposer made one request to a language model (tokens, dollars, seconds)
  deploy_step,          // a step of `warpforge deploy` ended (gate, build, verify, time, rollback...)
  deploy_finished,      // a deploy ended: accepted, rolled back, skipped, refused, failed, recovered
  gpu_leased,           // a GPU was given to a job
  gpu_released,         // a GPU went back to the pool
  runner_started,       // a warpforge-runner process started on a GPU
  runner_restarted,     // a runner crashed or hung and was replaced
  runner_failed,        // a runner could not be (re)started; its GPU is out of service
  actor_started,        // a supervised actor started
  actor_restarted,      // a supervised actor crashed and was restarted after a back-off
  actor_gave_up,        // an actor crashed too often in its window; the supervisor escalated
  feed_dropped,         // events the publisher dropped since its last report (slow subscribers)
  heartbeat,            // the feed is alive; published on an interval, never stored, no seq of its own
  warning,              // something a person should know, work goes on
  error,                // something failed; detail says what and whether work goes on
};

std::string_view to_string(event_type type);
std::optional<event_type> event_type_from_string(std::string_view text);

/// Every value, for exhaustive tests and documentation tables.
inline constexpr event_type all_event_types[] = {
  event_type::campaign_started,  event_type::campaign_finished, event_type::campaign_failed,
  event_type::campaign_interrupted, event_type::job_started,    event_type::job_finished,
  event_type::job_failed,        event_type::iteration_started, event_type::iteration_finished,
  event_type::diagnosis_ready,   event_type::branch_proposed,   event_type::branch_compiled,
  event_type::branch_checked,    event_type::branch_measured,   event_type::branch_failed,
  event_type::champion_elected,  event_type::ablation_measured, event_type::llm_call,
  event_type::deploy_step,       event_type::deploy_finished,
  event_type::gpu_leased,        event_type::gpu_released,      event_type::runner_started,
  event_type::runner_restarted,  event_type::runner_failed,     event_type::actor_started,
  event_type::actor_restarted,   event_type::actor_gave_up,     event_type::feed_dropped,
  event_type::heartbeat,         event_type::warning,           event_type::error,
};

/// Sentinels for "this event is not about a particular iteration / branch / GPU".
inline constexpr std::int64_t no_iter = -1;
inline constexpr std::int64_t no_branch = -1;
inline constexpr int no_gpu = -1;

struct event {
  std::uint64_t seq = 0;          // position in the campaign's event log (the store's events.seq); increasing
  double ts = 0.0;                // when it happened, unix time [s]
  event_type type = event_type::warning;
  std::string campaign;           // campaign name; empty = none
  std::string job;                // job name; empty = none
  std::int64_t iter = no_iter;    // iteration of the job, from 0; no_iter = none
  std::int64_t branch = no_branch; // branch within the iteration, from 0; no_branch = none
  int gpu = no_gpu;               // GPU index on this host, from 0; no_gpu = none
  std::string detail_json = "{}"; // type-specific fields: a JSON object without envelope members

  friend bool operator==(const event&, const event&) = default;
};

/// True for the names the envelope uses (schema, seq, ts, type, campaign, job, iter, branch, gpu):
/// a detail member may not take one of them, since detail members sit beside them in the JSON.
bool is_envelope_member(std::string_view name);

/// The members of a JSON object's text, without its braces and surrounding blanks
/// (`"a":1,"b":2`, or "" for `{}`); nullopt when the text is not braced. Checks only the braces:
/// the text comes from json::writer or from an event that decode() accepted.
std::optional<std::string_view> object_members(std::string_view object_json);

/// Builds an event's detail_json. Keys must not be envelope names (a broken invariant in the
/// producer: throws std::invalid_argument). Values go through json::writer, so strings are escaped
/// and non-finite doubles become null.
class detail {
public:
  detail();

  template <class T>
  detail& add(std::string_view key, const T& value) {
    add_key(key);
    writer_.value(value);
    return *this;
  }
  detail& add_null(std::string_view key);
  /// Adds `json_text` verbatim (an array or object the caller built with json::writer).
  detail& add_raw(std::string_view key, std::string_view json_text);

  /// The object written so far, closed: "{}" when nothing was added.
  std::string json() const;

  /// `object_json` (a JSON object, e.g. an event's detail_json) with this detail's members
  /// appended after its own. Throws std::invalid_argument when object_json is not an object
  /// (a broken invariant in the producer, as encode() does).
  std::string appended_to(std::string_view object_json) const;

private:
  void add_key(std::string_view key);

  json::writer writer_;
};

} // namespace warpforge::feed
