#pragma once
// campaign_engine: a campaign's whole flow as plain code, so the scheduler actor only carries
// messages. It keeps every job's plan (job_driver for optimize, fixed_plan for bench, diagnose
// and hosts without a GPU), turns what the plans want into orders for the pipeline's stages, and
// what comes back into the next orders, store writes and events:
//
//   planned branch → its row and source file → resolve → compile order ──built──→ (SASS order
//   ──checked──) → the plan's next race, on an idle GPU, with the incumbent first ──raced──→
//   measurement rows, events, the plan's verdicts → a profile of the best on an idle GPU
//   ──profiled──→ the diagnosis → the next proposal ──proposed──→ more planned branches.
//
//   campaign_engine engine{setup, jobs, clock};
//   engine.start();
//   for (;;) { auto out = engine.take_outbox(); send(out); ...; engine.built(kernel); ... }
//   if (engine.finished()) reply(engine.result());
//
// Orders carry a ticket; every answer comes back with its ticket (an order answered twice, or
// answered after an interrupt, is ignored). GPUs are handed out here: a GPU is busy from the
// race or profile given to it until its answer. Placement: one queue of work for every GPU (a
// job's next race goes to whichever idle GPU of its model asks first, the GPU idle longest
// first, the job with the fewest races sent first), never a GPU fixed per job; a job's races
// stay on GPUs of the model its first race ran on (gpu_model). Where only a job's end waits for
// its profile, profiles take turns, each to the GPU that profiled least. Without a GPU, a race is answered
// at once: every kernel not_run, with the reason. A job whose problem has several configurations races each
// branch at every one in turn on the same GPU (one race order each, the GPU leased throughout)
// and records their weighted combination (gpu/runner/config_race.hpp); profiles run at the
// configuration with the most weighted data (job_setup.hpp, heaviest_config).

#include "foundation/expected/expected.hpp"
#include "feed/event.hpp"
#include "gpu/runner/race_request.hpp"
#include "pipeline/build.hpp"
#include "pipeline/campaign.hpp"
#include "pipeline/job_plan.hpp"
#include "pipeline/job_setup.hpp"
#include "pipeline/physical_limit.hpp"
#include "pipeline/records.hpp"
#include "report/campaign_report.hpp"
#include "tuning/result_cache.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warpforge::pipeline {

using ticket = std::uint64_t;

/// The most profiles one GPU takes at once where profiles take turns (`[profile] champions` final
/// or none): their counters are read in one range profiler session (engine_dispatch.cpp).
inline constexpr std::size_t profile_batch_limit = 16;

struct race_dispatch {
  ticket id = 0;
  int gpu = -1;                // the worker to send it to
  branch_ref ref;              // the job and iteration
  gpu::race_request request;
};

struct profile_dispatch {
  ticket id = 0;
  branch_ref ref;              // the branch profiled
  gpu::device_info device;     // where
  gpu::race_request launch;    // its kernel (kernels[0]) with the problem's arguments
  std::string metrics_path;    // where the metric set is kept
  config::profile_tool tool = config::profile_tool::cupti; // who reads the counters ([profile] tool)
};

struct proposal_dispatch {
  ticket id = 0;
  propose_request request;
};

/// What the engine wants sent, since the last take_outbox().
struct outbox {
  std::vector<std::pair<ticket, compile_order>> compiles;
  std::vector<std::pair<ticket, sass_order>> sass_checks;
  std::vector<proposal_dispatch> proposals;
  std::vector<race_dispatch> races;
  std::vector<profile_dispatch> profiles;
  std::vector<store_write> writes;
  std::vector<feed::event> events;
  bool empty() const;
};

/// What an earlier run of this campaign left (resume, or a restarted scheduler).
struct earlier_run {
  report::campaign_report report; // the store's view
};

class campaign_engine {
public:
  using clock = std::function<double()>; // seconds since the campaign started

  campaign_engine(campaign_setup setup, std::vector<job_setup> jobs, clock now);
  ~campaign_engine();

  /// Plans every job's first work; with `earlier`, first replays what the store holds: finished
  /// work is not redone, a branch without an outcome is built and measured again under its row.
  void start(const std::optional<earlier_run>& earlier = std::nullopt);

  void built(ticket id, const built_kernel& kernel);
  void checked(ticket id, const sass_verdict& verdict);
  void proposed(ticket id, const expected<proposal, std::string>& answer);
  void raced(ticket id, const gpu::device_info& device, const gpu::race_result& result, double request_s);
  /// A profile's diagnosis; one whose worker was out of service (summary.service) is
  /// gpu_out_of_service for it.
  void profiled(ticket id, const diagnosis_summary& summary);
  /// The race or profile `id` went to a GPU whose worker is out of service (`why`): the GPU
  /// leaves the placement and the order goes to a healthy GPU (a race pinned to that GPU, bench's
  /// and diagnose's, ends not_run with the reason; a pinned profile ends undiagnosed). With no
  /// healthy GPU left every open job fails, saying so.
  void gpu_out_of_service(ticket id, int gpu, const std::string& why);
  /// A GPU joined the running campaign (a remote host's, docs/hosts.md): one out of service under
  /// that ordinal is back in service, a new one is added to the placement. A GPU of another
  /// architecture than the campaign compiles for is not taken (a warning says so).
  void gpu_joined(const gpu::device_info& device);
  /// Looks at the wall-time budget and idle GPUs again.
  void tick();
  /// Ctrl-C: every branch in flight ends interrupted, every open job interrupted; the campaign
  /// finishes at once.
  void interrupt(const std::string& reason);

  outbox take_outbox();
  bool finished() const;
  campaign_result result() const;

  // For the status protocol.
  std::size_t open_jobs() const;
  std::size_t busy_gpus() const;

private:
  struct branch_slot;
  struct job_slot;
  struct gpu_slot;
  struct order;

  // planning
  void pump();
  void plan_job(job_slot& job);
  void record_planned(job_slot& job, const planned_branch& b);
  void build(job_slot& job, branch_slot& slot);
  void compile_ahead(job_slot& job, const planned_branch& b);
  void end_branch(job_slot& job, const planned_branch& b, const branch_result& result, int gpu);
  void after_plan(job_slot& job);
  void close_job(job_slot& job);
  void abandon_job(job_slot& job, const std::string& why);
  void end_unraced(job_slot& job, const std::string& why);
  void forget_iteration(job_slot& job, std::int64_t iteration);
  void end_open_iterations(job_slot& job, vocabulary::iteration_state state);
  // GPUs
  void dispatch();
  bool dispatch_race(gpu_slot& gpu, bool eager);
  bool dispatch_requeued(gpu_slot& gpu);
  void send_race(job_slot& job, gpu_slot& gpu, const race_plan& race);
  bool any_healthy_gpu(const std::string& model = {}) const;
  std::vector<job_slot*> jobs_in_turn();
  static bool may_measure(const job_slot& job, const gpu_slot& gpu);
  // Which profiles an idle GPU may take (engine_dispatch.cpp).
  enum class profile_offer {
    due,       // profiles due, in their turn
    due_idle,  // profiles due, for a GPU with nothing to race: no turn to wait for
    early,     // a job's best before its end (job_plan::early_profile), in their turn
  };
  bool dispatch_profile(gpu_slot& gpu, profile_offer offer = profile_offer::due);
  bool profiles_take_turns() const;
  bool profiling() const;
  bool profiled_least(const gpu_slot& gpu) const;
  void end_work_pinned_to(const gpu_slot& gpu);
  void race_without_gpu(job_slot& job, const race_plan& race);
  gpu::race_request race_request_for(job_slot& job, const race_plan& race, bool with_incumbent,
                                     std::size_t config) const;
  gpu::kernel_launch launch_of(const job_slot& job, const branch_slot& slot, std::size_t config) const;
  bool race_next_config(job_slot& job, order& o, const gpu::race_result& result, double request_s);
  void keep_launches(const job_slot& job, const race_plan& race, const gpu::race_request& request) const;
  // the physical-limit gate (engine_gate.cpp): true while a fresh re-measure holds the race
  bool limit_gate(job_slot& job, order& o, const gpu::device_info& device, gpu::race_result& result, double& request_s);
  physical_limit job_limit(const job_slot& job, const gpu::device_info& device, bool fresh) const;
  void mark_fresh(const order& o, gpu::race_request& request) const;
  void unhold(order& o) const;
  void sanitize_champion(job_slot& job, const order& o, const gpu::device_info& device, gpu::race_result& result);
  void gpu_busy(gpu_slot& gpu, bool busy);
  gpu_slot& gpu_of(int ordinal);
  void remember(job_slot& job, const planned_branch& b, const branch_result& r, const gpu::device_info& device);
  void update_usage();
  std::vector<attempt> known_invalid(job_slot& job);
  std::size_t index_of(const job_slot& job) const;
  // resume
  void replay(job_slot& job, const report::job_entry& stored);
  bool replay_branch(job_slot& job, const planned_branch& b, const report::branch_entry* entry);

  ticket next_ticket() { return ++last_ticket_; }
  double now() const { return clock_(); }
  branch_ref ref_of(const job_slot& job, std::int64_t iteration, std::int64_t ordinal) const;
  std::string arch() const;

  campaign_setup setup_;
  clock clock_;
  std::vector<std::unique_ptr<job_slot>> jobs_;
  std::vector<gpu_slot> gpus_;
  std::map<ticket, order> orders_;   // in flight
  std::vector<order> requeued_;      // races a GPU out of service gave back, for a healthy one
  ticket last_ticket_ = 0;
  outbox out_;
  std::optional<tuning::result_cache> cache_;
  bool interrupted_ = false;
  std::string interrupt_reason_;
  std::uint64_t compiled_ = 0;
  std::uint64_t measured_ = 0;
  std::size_t compiles_in_flight_ = 0;
  bool first_measured_ = false;
  double last_usage_update_ = 0;
};

} // namespace warpforge::pipeline
