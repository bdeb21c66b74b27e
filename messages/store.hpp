#pragma once
// store: the single SQLite writer of a run directory. Everything that must survive a crash
// arrives here as one of these records; readers (status, tail replay) open the database
// read-only on their own.

#include "feed/event.hpp"
#include "messages/atoms.hpp"
#include "messages/status.hpp"
#include "storage/rows.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>

namespace warpforge::messages {

struct campaign_record {
  std::string name;
  std::string spec_path;
  std::string spec_toml;
  std::string run_dir;
  friend bool operator==(const campaign_record&, const campaign_record&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, campaign_record& x) {
  return f(caf::meta::type_name("campaign_record"), x.name, x.spec_path, x.spec_toml, x.run_dir);
}

struct job_record {
  std::int64_t campaign_id = 0;
  std::string name;
  std::string problem_path;
  friend bool operator==(const job_record&, const job_record&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_record& x) {
  return f(caf::meta::type_name("job_record"), x.campaign_id, x.name, x.problem_path);
}

struct campaign_state_change {
  std::int64_t campaign_id = 0;
  storage::campaign_state state = storage::campaign_state::created;
  std::string reason; // why it failed or was interrupted
  friend bool operator==(const campaign_state_change&, const campaign_state_change&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, campaign_state_change& x) {
  return f(caf::meta::type_name("campaign_state_change"), x.campaign_id, x.state, x.reason);
}

struct job_state_change {
  std::int64_t job_id = 0;
  storage::job_state state = storage::job_state::pending;
  std::string reason;
  friend bool operator==(const job_state_change&, const job_state_change&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, job_state_change& x) {
  return f(caf::meta::type_name("job_state_change"), x.job_id, x.state, x.reason);
}

using store_actor = caf::typed_actor<
  caf::replies_to<campaign_record>::with<std::int64_t>, // new campaign row → its id
  caf::replies_to<job_record>::with<std::int64_t>,      // new job row → its id
  caf::reacts_to<campaign_state_change>,
  caf::reacts_to<job_state_change>,
  caf::reacts_to<feed::event>,                          // persist one feed event (seq given)
  caf::replies_to<next_seq_atom>::with<std::int64_t>,   // where the feed's seq counter resumes
  caf::replies_to<flush_atom>::with<std::int64_t>,      // barrier: all before it is durable; → rows written
  caf::reacts_to<stop_atom>,                            // quit after everything queued before
  status_handler>;

} // namespace warpforge::messages
