#include "actors/store.hpp"

#include "actors/clock.hpp"
#include "actors/exceptions.hpp"
#include "feed/event_json.hpp"
#include "foundation/logging/logging.hpp"

#include <caf/error.hpp>
#include <caf/exit_reason.hpp>
#include <caf/sec.hpp>

#include <stdexcept>

namespace warpforge::actors {

void store_state::open(const std::filesystem::path& path) {
  auto opened = storage::database::open(path);
  if (!opened)
    throw std::runtime_error("store: cannot open " + path.string() + ": "
                             + storage::to_string(opened.error()));
  db.emplace(std::move(*opened));
  logging::get("store")->info("opened {}", path.string());
}

expected<std::int64_t, storage::store_error> store_state::record(const storage::campaign_record& r) {
  storage::campaign_row row;
  row.name = r.name;
  row.spec_path = r.spec_path;
  row.spec_toml = r.spec_toml;
  row.run_dir = r.run_dir;
  row.created_at = row.updated_at = unix_now_s();
  return db->insert_campaign(row);
}

expected<std::int64_t, storage::store_error> store_state::record(const storage::job_record& r) {
  storage::job_row row;
  row.campaign_id = r.campaign_id;
  row.name = r.name;
  row.problem_path = r.problem_path;
  row.updated_at = unix_now_s();
  return db->insert_job(row);
}

expected<std::int64_t, storage::store_error> store_state::record(const storage::campaign_state_change& c) {
  auto done = db->set_campaign_state(c.campaign_id, c.state, c.reason, unix_now_s());
  if (!done)
    return unexpected{std::move(done).error()};
  return c.campaign_id;
}

expected<std::int64_t, storage::store_error> store_state::record(const storage::job_state_change& c) {
  auto done = db->set_job_state(c.job_id, c.state, c.reason, unix_now_s());
  if (!done)
    return unexpected{std::move(done).error()};
  return c.job_id;
}

expected<std::int64_t, storage::store_error> store_state::record(const feed::event& e) {
  storage::event_row row;
  row.seq = static_cast<std::int64_t>(e.seq);
  row.ts = e.ts;
  row.type = std::string{feed::to_string(e.type)};
  if (!e.campaign.empty())
    row.campaign = e.campaign;
  if (!e.job.empty())
    row.job = e.job;
  if (e.iter != feed::no_iter)
    row.iter = e.iter;
  if (e.branch != feed::no_branch)
    row.branch = e.branch;
  if (e.gpu != feed::no_gpu)
    row.gpu = e.gpu;
  row.json = feed::encode(e);
  return db->append_event(row);
}

expected<std::int64_t, storage::store_error> store_state::iteration_id(std::int64_t job_id, std::int64_t number) {
  auto found = db->find_iteration(job_id, number);
  if (!found)
    return unexpected{std::move(found).error()};
  if (*found)
    return **found;
  storage::iteration_row row;
  row.job_id = job_id;
  row.number = number;
  row.started_at = unix_now_s();
  return db->insert_iteration(row);
}

expected<std::int64_t, storage::store_error> store_state::branch_id(const storage::branch_key& key) {
  auto iteration = iteration_id(key.job_id, key.iteration);
  if (!iteration)
    return iteration;
  auto found = db->find_branch(*iteration, key.ordinal);
  if (!found)
    return unexpected{std::move(found).error()};
  if (!*found)
    return unexpected{storage::store_error{storage::store_error_code::not_found,
                                           "no branch " + std::to_string(key.ordinal) + " in iteration " +
                                             std::to_string(key.iteration) + " of job " + std::to_string(key.job_id)}};
  return **found;
}

expected<std::int64_t, storage::store_error> store_state::record(const storage::job_update& u) {
  auto known = [](double v) { return v > 0 ? std::optional<double>{v} : std::nullopt; };
  auto done = db->set_job_progress(u.job_id, u.iterations_done, known(u.best_time_s), known(u.baseline_time_s),
                                   unix_now_s());
  if (!done)
    return unexpected{std::move(done).error()};
  return u.job_id;
}

expected<std::int64_t, storage::store_error> store_state::record(const storage::iteration_update& u) {
  auto id = iteration_id(u.job_id, u.number);
  if (!id)
    return id;
  // An update says only what it knows: a champion, the end, the gaps. What an earlier update wrote
  // and this one leaves out is kept (a diagnosis arriving after the election must not erase it).
  storage::iteration_row row;
  if (auto rows = db->load_iterations(u.job_id))
    for (const auto& r : *rows)
      if (r.id == *id)
        row = r;
  row.id = *id;
  row.state = u.state;
  if (u.champion_ordinal >= 0) {
    auto champion = branch_id({u.job_id, u.number, u.champion_ordinal});
    if (!champion)
      return champion;
    row.champion_branch_id = *champion;
  }
  if (u.finished)
    row.finished_at = unix_now_s();
  if (!u.gaps_json.empty())
    row.gaps_json = u.gaps_json;
  auto done = db->update_iteration(row);
  if (!done)
    return unexpected{std::move(done).error()};
  return *id;
}

expected<std::int64_t, storage::store_error> store_state::record(const storage::branch_record& r) {
  auto iteration = iteration_id(r.key.job_id, r.key.iteration);
  if (!iteration)
    return iteration;
  if (auto found = db->find_branch(*iteration, r.key.ordinal); !found)
    return unexpected{std::move(found).error()};
  else if (*found)
    return **found; // recorded before (a repeated write, a resumed campaign)
  storage::branch_row row;
  row.iteration_id = *iteration;
  row.ordinal = r.key.ordinal;
  row.kind = r.kind;
  if (r.parent_ordinal >= 0) {
    auto parent = branch_id({r.key.job_id, r.key.iteration, r.parent_ordinal});
    if (!parent)
      return parent;
    row.parent_branch_id = *parent;
  }
  row.methods_json = r.methods_json;
  row.defines_json = r.defines_json;
  row.source_path = r.source_path;
  if (r.duplicate_of_iteration >= 1) {
    row.duplicate_of_iteration = r.duplicate_of_iteration;
    row.duplicate_of_ordinal = r.duplicate_of_ordinal;
  }
  row.created_at = row.updated_at = unix_now_s();
  return db->insert_branch(row);
}

expected<std::int64_t, storage::store_error> store_state::record(const storage::branch_outcome_change& c) {
  auto id = branch_id(c.key);
  if (!id)
    return id;
  auto done = db->set_branch_outcome(*id, c.outcome, c.detail, unix_now_s());
  if (!done)
    return unexpected{std::move(done).error()};
  return *id;
}

expected<std::int64_t, storage::store_error> store_state::record(const storage::measurement_record& r) {
  auto branch = branch_id(r.key);
  if (!branch)
    return branch;
  storage::measurement_row row;
  row.branch_id = *branch;
  row.gpu = r.gpu;
  row.gpu_name = r.gpu_name;
  row.mode = r.mode;
  row.median_s = r.median_s;
  row.mean_s = r.mean_s;
  row.stddev_s = r.stddev_s;
  row.cv = r.cv;
  row.ci95_low_s = r.ci95_low_s;
  row.ci95_high_s = r.ci95_high_s;
  row.min_s = r.min_s;
  row.samples = r.samples;
  if (r.sm_clock_mhz > 0)
    row.sm_clock_mhz = r.sm_clock_mhz;
  row.created_at = unix_now_s();
  auto existing = db->find_measurement(*branch, r.gpu, r.mode);
  if (!existing)
    return unexpected{std::move(existing).error()};
  if (!*existing)
    return db->insert_measurement(row);
  row.id = **existing;
  auto done = db->update_measurement(row);
  if (!done)
    return unexpected{std::move(done).error()};
  return row.id;
}

expected<std::int64_t, storage::store_error> store_state::record(const storage::llm_call_record& r) {
  storage::llm_call_row row;
  row.job_id = r.job_id;
  row.iteration = r.iteration;
  row.seq = r.seq;
  row.purpose = r.purpose;
  row.model = r.model;
  row.outcome = r.outcome;
  row.input_tokens = r.input_tokens;
  row.output_tokens = r.output_tokens;
  row.cache_read_tokens = r.cache_read_tokens;
  row.cache_write_tokens = r.cache_write_tokens;
  row.cost_usd = r.cost_usd;
  row.seconds = r.seconds;
  row.attempts = r.attempts;
  row.transcript = r.transcript;
  row.created_at = unix_now_s();
  return db->insert_llm_call(row);
}

// A deployment's rows are keyed by its work folder, so a repeated write after a restart replaces.
expected<std::int64_t, storage::store_error> store_state::record(const storage::deployment_record& r) {
  return db->record_deployment(r, unix_now_s());
}

expected<std::int64_t, storage::store_error> store_state::record(const storage::deploy_step_record& r) {
  return db->record_deploy_step(r, unix_now_s());
}

expected<std::int64_t, storage::store_error> store_state::record(const storage::deployment_result& r) {
  auto done = db->finish_deployment(r, unix_now_s());
  if (!done)
    return unexpected{done.error()};
  return std::int64_t{0};
}

void store_state::note_failure(const storage::store_error& error) {
  ++write_errors;
  last_error = storage::to_string(error);
  logging::get("store")->error("write failed: {}", last_error);
}

messages::component_status store_state::status() const {
  messages::component_status s;
  s.component = name;
  s.state = write_errors == 0 ? messages::component_state::running
                              : messages::component_state::degraded;
  s.detail = last_error;
  s.counters = {{"rows_written", rows_written}, {"write_errors", write_errors}};
  return s;
}

messages::store_actor::behavior_type
store(messages::store_actor::stateful_pointer<store_state> self, std::filesystem::path database) {
  keep_exception_text(self);
  self->state.open(database);
  // Replies with the written row's id, or an error naming what failed.
  auto reply = [self](auto written) -> caf::result<std::int64_t> {
    if (!written) {
      self->state.note_failure(written.error());
      return caf::make_error(caf::sec::runtime_error, storage::to_string(written.error()));
    }
    ++self->state.rows_written;
    return *written;
  };
  auto apply = [self](auto written) {
    if (!written)
      self->state.note_failure(written.error());
    else
      ++self->state.rows_written;
  };
  return {
    [self, reply](const storage::campaign_record& r) { return reply(self->state.record(r)); },
    [self, reply](const storage::job_record& r) { return reply(self->state.record(r)); },
    [self, reply](const storage::campaign_state_change& c) { return reply(self->state.record(c)); },
    [self, reply](const storage::job_state_change& c) { return reply(self->state.record(c)); },
    [self, reply](const storage::job_update& u) { return reply(self->state.record(u)); },
    [self, reply](const storage::iteration_update& u) { return reply(self->state.record(u)); },
    [self, reply](const storage::branch_record& r) { return reply(self->state.record(r)); },
    [self, reply](const storage::branch_outcome_change& c) { return reply(self->state.record(c)); },
    [self, reply](const storage::measurement_record& r) { return reply(self->state.record(r)); },
    [self, reply](const storage::llm_call_record& r) { return reply(self->state.record(r)); },
    [self, reply](const storage::deployment_record& r) { return reply(self->state.record(r)); },
    [self, reply](const storage::deploy_step_record& r) { return reply(self->state.record(r)); },
    [self, reply](const storage::deployment_result& r) { return reply(self->state.record(r)); },
    [self, apply](const feed::event& e) { apply(self->state.record(e)); },
    [self](messages::next_seq_atom) -> caf::result<std::int64_t> {
      auto next = self->state.db->next_event_seq();
      if (!next)
        return caf::make_error(caf::sec::runtime_error, storage::to_string(next.error()));
      return *next;
    },
    [self](messages::flush_atom) { return self->state.rows_written; },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
