#include "actors/store.hpp"

#include "actors/clock.hpp"
#include "actors/exceptions.hpp"
#include "feed/event_json.hpp"
#include "logging/logging.hpp"

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

expected<std::int64_t, storage::store_error> store_state::record(const messages::campaign_record& r) {
  storage::campaign_row row;
  row.name = r.name;
  row.spec_path = r.spec_path;
  row.spec_toml = r.spec_toml;
  row.run_dir = r.run_dir;
  row.created_at = row.updated_at = unix_now_s();
  return db->insert_campaign(row);
}

expected<std::int64_t, storage::store_error> store_state::record(const messages::job_record& r) {
  storage::job_row row;
  row.campaign_id = r.campaign_id;
  row.name = r.name;
  row.problem_path = r.problem_path;
  row.updated_at = unix_now_s();
  return db->insert_job(row);
}

expected<void, storage::store_error> store_state::record(const messages::campaign_state_change& c) {
  return db->set_campaign_state(c.campaign_id, c.state, c.reason, unix_now_s());
}

expected<void, storage::store_error> store_state::record(const messages::job_state_change& c) {
  return db->set_job_state(c.job_id, c.state, c.reason, unix_now_s());
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

expected<std::int64_t, storage::store_error> store_state::record(const messages::iteration_record& r) {
  storage::iteration_row row;
  row.job_id = r.job_id;
  row.number = r.number;
  row.started_at = unix_now_s();
  return db->insert_iteration(row);
}

expected<void, storage::store_error> store_state::record(const messages::job_update& u) {
  auto known = [](double v) { return v > 0 ? std::optional<double>{v} : std::nullopt; };
  return db->set_job_progress(u.job_id, u.iterations_done, known(u.best_time_s), known(u.baseline_time_s),
                              unix_now_s());
}

expected<void, storage::store_error> store_state::record(const messages::iteration_update& u) {
  storage::iteration_row row;
  row.id = u.iteration_id;
  row.state = u.state;
  if (u.champion_branch_id != 0)
    row.champion_branch_id = u.champion_branch_id;
  if (u.finished)
    row.finished_at = unix_now_s();
  if (!u.gaps_json.empty())
    row.gaps_json = u.gaps_json;
  return db->update_iteration(row);
}

expected<std::int64_t, storage::store_error> store_state::record(const messages::branch_record& r) {
  storage::branch_row row;
  row.iteration_id = r.iteration_id;
  row.ordinal = r.ordinal;
  row.kind = r.kind;
  if (r.parent_branch_id != 0)
    row.parent_branch_id = r.parent_branch_id;
  row.methods_json = r.methods_json;
  row.defines_json = r.defines_json;
  row.source_path = r.source_path;
  row.created_at = row.updated_at = unix_now_s();
  return db->insert_branch(row);
}

expected<void, storage::store_error> store_state::record(const messages::branch_outcome_change& c) {
  return db->set_branch_outcome(c.branch_id, c.outcome, c.detail, unix_now_s());
}

expected<std::int64_t, storage::store_error> store_state::record(const messages::measurement_record& r) {
  storage::measurement_row row;
  row.branch_id = r.branch_id;
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
  return db->insert_measurement(row);
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
    [self, reply](const messages::campaign_record& r) { return reply(self->state.record(r)); },
    [self, reply](const messages::job_record& r) { return reply(self->state.record(r)); },
    [self, apply](const messages::campaign_state_change& c) { apply(self->state.record(c)); },
    [self, apply](const messages::job_state_change& c) { apply(self->state.record(c)); },
    [self, apply](const feed::event& e) { apply(self->state.record(e)); },
    [self, reply](const messages::iteration_record& r) { return reply(self->state.record(r)); },
    [self, apply](const messages::iteration_update& u) { apply(self->state.record(u)); },
    [self, apply](const messages::job_update& u) { apply(self->state.record(u)); },
    [self, reply](const messages::branch_record& r) { return reply(self->state.record(r)); },
    [self, apply](const messages::branch_outcome_change& c) { apply(self->state.record(c)); },
    [self, reply](const messages::measurement_record& r) { return reply(self->state.record(r)); },
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
