// The campaign engine's GPU half: which race or profile an idle GPU gets, the race's request (the
// incumbent first, then the challengers), what its answer records, and how busy the GPUs were.

#include "pipeline/campaign_engine.hpp"

#include "gpu/device_report.hpp"
#include "pipeline/code_check.hpp"
#include "pipeline/engine_slots.hpp"

#include "gpu/runner/config_race.hpp"
#include "tuning/point_text.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace warpforge::pipeline {

namespace {
using vocabulary::branch_outcome;
} // namespace

// GPU busy and the wait for compiles are integrals over time: called before every state change.
void campaign_engine::update_usage() {
  const double t = now();
  const double dt = t - last_usage_update_;
  last_usage_update_ = t;
  if (dt <= 0 || !first_measured_ || compiles_in_flight_ == 0)
    return;
  for (auto& g : gpus_)
    if (!g.busy)
      g.usage.waited_for_compile_s += dt;
}

campaign_engine::gpu_slot& campaign_engine::gpu_of(int ordinal) {
  for (auto& g : gpus_)
    if (g.device.ordinal == ordinal)
      return g;
  throw std::logic_error("no GPU " + std::to_string(ordinal) + " in this campaign"); // orders name ours only
}

std::size_t campaign_engine::busy_gpus() const {
  std::size_t busy = 0;
  for (const auto& g : gpus_)
    busy += g.busy;
  return busy;
}

void campaign_engine::gpu_busy(gpu_slot& gpu, bool busy) {
  if (gpu.busy && !busy)
    gpu.usage.occupied_s += now() - gpu.since;
  gpu.busy = busy;
  gpu.since = now();
}

// The open jobs in the order they take an idle GPU: the fewest races sent first (spec order
// among equals), so the jobs advance together and the campaign does not end on one job's tail
// while the other GPUs idle.
std::vector<campaign_engine::job_slot*> campaign_engine::jobs_in_turn() {
  std::vector<job_slot*> turn;
  for (auto& job : jobs_)
    if (!job->closed)
      turn.push_back(job.get());
  std::stable_sort(turn.begin(), turn.end(),
                   [](const job_slot* a, const job_slot* b) { return a->races_sent < b->races_sent; });
  return turn;
}

// A job measures on one GPU model: its times (the incumbent's frame, the election) are never
// compared across models. A job not raced yet may take any GPU.
bool campaign_engine::may_measure(const job_slot& job, const gpu_slot& gpu) {
  return job.model.empty() || job.model == gpu.model;
}

void campaign_engine::dispatch() {
  if (gpus_.empty()) {
    for (auto& job : jobs_) {
      if (job->closed || !job->reference_ready())
        continue;
      while (auto race = job->plan->next_race(true, std::nullopt))
        race_without_gpu(*job, *race);
      while (auto profile = job->plan->profile_due(std::nullopt))
        job->plan->diagnosed(*profile, std::nullopt);
    }
    return;
  }
  // The idle GPUs take work idle-longest first, so the work spreads evenly over them. Each takes
  // races a GPU out of service gave back first (they were due), then profiles (a diagnosis may
  // stop a job; taking turns, only the GPU that profiled least, and every profile then due in one
  // batch), then whole phases, then whatever is built, then a profile it left to others, then a
  // job's final profile ahead of its end. A GPU out of service gets nothing, and the work pinned
  // to it ends (end_work_pinned_to).
  std::vector<gpu_slot*> idle;
  for (auto& gpu : gpus_)
    if (!gpu.out_of_service.empty())
      end_work_pinned_to(gpu);
    else if (!gpu.busy)
      idle.push_back(&gpu);
  std::stable_sort(idle.begin(), idle.end(), [](const gpu_slot* a, const gpu_slot* b) { return a->since < b->since; });
  for (auto* gpu : idle)
    if (!dispatch_requeued(*gpu) && !(profiled_least(*gpu) && dispatch_profile(*gpu)) &&
        !dispatch_race(*gpu, false) && !dispatch_race(*gpu, true) &&
        !dispatch_profile(*gpu, profile_offer::due_idle)) // nothing to race: it profiles rather than idle,
      dispatch_profile(*gpu, profile_offer::early);     // even a best whose job has not stopped yet
}

// Where a job's next proposal waits for its diagnosis ([profile] champions = "each") a profile
// goes at once, to any idle GPU: queued, the profiles became the campaign's critical path (12
// jobs on 4x H100: 22.1 s instead of 17.4 s). Where only a job's end waits for it (final), they
// take turns: the host's driver takes their passes in turn anyway (docs/measurement.md).
bool campaign_engine::profiles_take_turns() const {
  return config::profiled_champions_of(setup_.spec) != config::champion_profiles::each;
}

// Taking turns (profiling()), the GPU that just gave a profile back is often the only idle one
// when the next is due: left to that, one GPU profiled 21 of 24 jobs and measured half as much
// as the other (2x H100). So a GPU takes a profile first only when no GPU of its model has spent
// less time profiling; else it races, and profiles only when nothing is left to race. (Taking
// profiles only when nothing is left to race, so that more of them go in one batch, was tried on
// 4x H100: one GPU then profiled 21 of 24 jobs early and measured 42 candidates against the
// others' 77-92, and the sweep took 13.9 s instead of 12.0 s; faster on one GPU, 32.5 s against
// 39.0 s.)
bool campaign_engine::profiled_least(const gpu_slot& gpu) const {
  return !profiles_take_turns() || std::none_of(gpus_.begin(), gpus_.end(), [&](const gpu_slot& other) {
    return other.out_of_service.empty() && other.model == gpu.model && other.usage.profile_s < gpu.usage.profile_s;
  });
}

// Bench's and diagnose's races and profiles are measurements of one GPU each (pinned): on a GPU
// out of service they cannot run anywhere else, so they end here (branches not_run with the
// reason, profiles undiagnosed) instead of leaving their job waiting for them. An optimize job's
// work is never pinned: a GPU out of service is simply not given any.
void campaign_engine::end_work_pinned_to(const gpu_slot& gpu) {
  if (setup_.mode == campaign_mode::optimize)
    return;
  for (auto& owned : jobs_) {
    auto& job = *owned;
    if (job.closed || !job.reference_ready())
      continue;
    while (auto race = job.plan->next_race(true, gpu.device.ordinal)) {
      race_outcome outcome;
      for (auto ordinal : race->ordinals) {
        branch_result r;
        r.outcome = branch_outcome::not_run;
        r.detail = gpu.out_of_service;
        end_branch(job, job.branches.at({race->iteration, ordinal}).plan, r, feed::no_gpu);
        outcome.branches.push_back(std::move(r));
      }
      job.plan->measured(*race, outcome);
    }
    while (auto profile = job.plan->profile_due(gpu.device.ordinal))
      job.plan->diagnosed(*profile, std::nullopt);
  }
}

// A healthy GPU of `model` (empty: of any model).
bool campaign_engine::any_healthy_gpu(const std::string& model) const {
  return std::any_of(gpus_.begin(), gpus_.end(), [&](const gpu_slot& g) {
    return g.out_of_service.empty() && (model.empty() || g.model == model);
  });
}

bool campaign_engine::dispatch_requeued(gpu_slot& gpu) {
  for (auto it = requeued_.begin(); it != requeued_.end();) {
    auto& job = *jobs_.at(it->job);
    if (job.closed) {
      it = requeued_.erase(it);
      continue;
    }
    if (!may_measure(job, gpu)) {
      ++it;
      continue;
    }
    const auto race = it->race;
    requeued_.erase(it);
    send_race(job, gpu, race);
    return true;
  }
  return false;
}

void campaign_engine::gpu_out_of_service(ticket id, int ordinal, const std::string& reason) {
  update_usage();
  auto& gpu = gpu_of(ordinal);
  // gpu_slot marks out of service by a reason that is not empty: a worker that gave none still gets one
  const std::string why = reason.empty() ? "gpu." + std::to_string(ordinal) + " is out of service" : reason;
  if (gpu.out_of_service.empty()) {
    gpu.out_of_service = why;
    out_.events.push_back(job_event(feed::event_type::warning, "", feed::no_iter, feed::no_branch, ordinal,
                                    feed::detail{}.add("message", why + "; its work goes to the other GPUs")
                                      .add("component", "scheduler").json()));
  }
  auto it = orders_.find(id);
  if (it == orders_.end())
    return pump();
  auto o = it->second;
  orders_.erase(it);
  if (std::none_of(orders_.begin(), orders_.end(), [&](const auto& entry) { return entry.second.gpu == ordinal; }))
    gpu_busy(gpu, false); // the last order of its batch of profiles, or its one race
  unhold(o); // a fresh re-measure stands for its whole race again (engine_gate.cpp)
  auto& job = *jobs_.at(o.job);
  const bool profile = o.what == order::kind::profile;
  auto released = feed::detail{}.add("out_of_service", why);
  if (profile)
    released.add("profile", true);
  out_.events.push_back(job_event(feed::event_type::gpu_released, job.setup.name,
                                  profile ? o.profile.branch.iteration : o.race.iteration,
                                  profile ? o.profile.branch.ordinal : feed::no_branch, ordinal, released.json()));
  if (profile && !job.closed) {
    if (o.profile.gpu) // a profile of this GPU (diagnose): no other GPU can make it
      job.plan->diagnosed(o.profile, std::nullopt);
    else if (o.profile.early) // not sent again: by then its best may be gone; the plan offers it anew
      job.plan->profile_lost(o.profile);
    else
      job.pending_profile = o.profile; // the next healthy GPU of the job's model takes it
  }
  if (o.what == order::kind::race && !job.closed) {
    if (o.race.gpu) { // a measurement of this GPU (bench, diagnose): no other GPU can make it
      race_outcome outcome;
      for (auto ordinal_in_race : o.race.ordinals) {
        branch_result r;
        r.detail = why;
        end_branch(job, job.branches.at({o.race.iteration, ordinal_in_race}).plan, r, feed::no_gpu);
        outcome.branches.push_back(std::move(r));
      }
      job.plan->measured(o.race, outcome);
    } else {
      o.config = 0; // from the start, on whichever healthy GPU is free first
      o.kernels.clear();
      o.parts.clear();
      o.request_s = 0;
      requeued_.push_back(std::move(o));
    }
  }
  std::string reasons;
  for (const auto& g : gpus_)
    if (!g.out_of_service.empty())
      reasons += (reasons.empty() ? "" : "; ") + g.out_of_service;
  if (!any_healthy_gpu()) {
    for (auto& owned : jobs_)
      abandon_job(*owned, "no healthy GPU is left: " + reasons);
    requeued_.clear();
  }
  for (auto& owned : jobs_) // a job bound to a model whose GPUs are all out of service
    if (!owned->closed && !any_healthy_gpu(owned->model))
      abandon_job(*owned, "no healthy GPU is left of its model, " + owned->model + ": " + reasons);
  pump();
}

// A profile in flight. Taking turns, a second one would only wait in the driver, holding its GPU
// and slowing the races of the others; its GPU races instead, and the profile goes when the first
// one is back (docs/measurement.md, "What a profile costs").
bool campaign_engine::profiling() const {
  return std::any_of(orders_.begin(), orders_.end(),
                     [](const auto& entry) { return entry.second.what == order::kind::profile; });
}

// Taking turns, a GPU that profiles takes every profile due for its model (up to
// profile_batch_limit) at once: its runner reads their counters in one range profiler session,
// whose passes cost what one profile's do (gpu/runtime/range_profiler.hpp). Each is its own order.
// A GPU with nothing to race does not wait for another GPU's batch to take the profiles due: it
// would idle, and at a campaign's end a batch with SGEMMs (1.5 s, most of it their SASS metrics'
// patched launches, which are no counter passes) held the last jobs' profiles back while three
// GPUs idled (4x H100).
bool campaign_engine::dispatch_profile(gpu_slot& gpu, profile_offer offer) {
  const bool early = offer == profile_offer::early;
  if (profiles_take_turns() && profiling() && offer != profile_offer::due_idle)
    return false;
  const std::size_t limit = profiles_take_turns() ? profile_batch_limit : 1;
  std::vector<std::pair<job_slot*, profile_plan>> taken;
  for (auto& job : jobs_) {
    if (taken.size() == limit)
      break;
    if (job->closed || !may_measure(*job, gpu) || (early && !job->reference_ready()))
      continue;
    if (!job->pending_profile)
      job->pending_profile = early ? job->plan->early_profile() : job->plan->profile_due(gpu.device.ordinal);
    if (!job->pending_profile || (job->pending_profile->gpu && *job->pending_profile->gpu != gpu.device.ordinal))
      continue;
    taken.emplace_back(job.get(), *std::exchange(job->pending_profile, std::nullopt));
  }
  for (auto& [job, profile] : taken) {
    const auto& b = profile.branch;
    const auto& slot = job->branches.at({b.iteration, b.ordinal});
    const auto t = next_ticket();
    auto& o = orders_[t] = order{order::kind::profile, index_of(*job), {b.iteration, b.ordinal}, {}, false, profile,
                                 gpu.device.ordinal};
    o.batch = taken.size();
    race_plan one{b.iteration, {}, false, gpu.device.ordinal};
    const std::size_t at = job->setup.heaviest; // most of the time goes there
    auto launch = race_request_for(*job, one, false, at);
    launch.kernels = {launch_of(*job, slot, at)};
    const auto folder = branch_folder(setup_.run_dir, job->setup.name, b.iteration, b.ordinal);
    out_.profiles.push_back({t, ref_of(*job, b.iteration, b.ordinal), gpu.device, std::move(launch),
                             (folder / ("metrics-gpu" + std::to_string(gpu.device.ordinal) + ".json")).string(),
                             setup_.spec.profiler});
    feed::detail leased;
    leased.add("profile", true);
    if (taken.size() > 1)
      leased.add("batch", static_cast<std::int64_t>(taken.size()));
    if (job->setup.configs.size() > 1)
      leased.add("config", job->setup.configs[at].config.name);
    out_.events.push_back(job_event(feed::event_type::gpu_leased, job->setup.name, b.iteration, b.ordinal,
                                    gpu.device.ordinal, leased.json()));
  }
  if (taken.empty())
    return false;
  gpu_busy(gpu, true);
  return true;
}

bool campaign_engine::dispatch_race(gpu_slot& gpu, bool eager) {
  for (auto* job : jobs_in_turn()) {
    if (!job->reference_ready() || !may_measure(*job, gpu))
      continue;
    auto race = job->plan->next_race(eager, gpu.device.ordinal);
    if (!race)
      continue;
    if (!job->reference_failure.empty()) { // nothing can be checked against it
      race_without_gpu(*job, *race);
      continue;
    }
    send_race(*job, gpu, *race);
    return true;
  }
  return false;
}

void campaign_engine::send_race(job_slot& job, gpu_slot& gpu, const race_plan& race) {
  const auto t = next_ticket();
  auto& o = orders_[t] = order{order::kind::race, index_of(job), {race.iteration, -1}, race, race.with_incumbent, {},
                               gpu.device.ordinal};
  auto request = race_request_for(job, race, race.with_incumbent, 0); // the first configuration
  for (std::size_t k = 0; k < request.kernels.size(); ++k)
    o.kernels.push_back(k);
  keep_launches(job, race, race_request_for(job, race, race.with_incumbent, job.setup.heaviest));
  if (job.model.empty())
    job.model = gpu.model; // its times are in this model's frame from now on
  ++job.races_sent;
  out_.races.push_back({t, gpu.device.ordinal, ref_of(job, race.iteration, -1), std::move(request)});
  out_.events.push_back(job_event(feed::event_type::gpu_leased, job.setup.name, race.iteration, feed::no_branch,
                                  gpu.device.ordinal,
                                  feed::detail{}.add("kernels", static_cast<std::uint64_t>(race.ordinals.size()))
                                    .add("incumbent", race.with_incumbent).json()));
  gpu_busy(gpu, true);
}

// Each branch's launch alone, beside it: `warpforge-runner --execute request-<arch>.json` replays
// it (under ncu, say) with the same CUBINs, arguments and seeds (at the heaviest configuration,
// where it is profiled).
void campaign_engine::keep_launches(const job_slot& job, const race_plan& race, const gpu::race_request& request) const {
  const std::size_t offset = request.kernels.size() - race.ordinals.size();
  for (std::size_t i = 0; i < race.ordinals.size(); ++i) {
    auto alone = request;
    alone.kernels = {request.kernels[offset + i]};
    const auto folder = branch_folder(setup_.run_dir, job.setup.name, race.iteration, race.ordinals[i]);
    std::ofstream{folder / ("request-" + arch() + ".json")} << gpu::encode_body(alone) << '\n';
  }
}

// No GPU (or a reference that does not build): every kernel of the race ends not_run, with why.
void campaign_engine::race_without_gpu(job_slot& job, const race_plan& race) {
  race_outcome outcome;
  for (auto ordinal : race.ordinals) {
    const auto& b = job.branches.at({race.iteration, ordinal}).plan;
    branch_result r;
    r.outcome = branch_outcome::not_run;
    r.detail = !job.reference_failure.empty()
                 ? job.reference_failure
                 : "compiled for " + arch() + ", " + code_check_scope() + "; measurements need a GPU (" +
                     gpu::short_no_gpu_reason(setup_.why_no_gpu) + ")";
    end_branch(job, b, r, feed::no_gpu);
    outcome.branches.push_back(std::move(r));
  }
  job.plan->measured(race, outcome);
}

gpu::kernel_launch campaign_engine::launch_of(const job_slot& job, const branch_slot& slot, std::size_t config) const {
  // The entry at the branch's point: a tunable in its template arguments at its value.
  const auto& at = slot.resolved.empty() ? job.setup.configs.at(config).defaults : slot.resolved.at(config);
  return {slot.cubin_path, at.entry, at.launch};
}

// The race's request at one of the job's configurations (its arguments, its launches).
gpu::race_request campaign_engine::race_request_for(job_slot& job, const race_plan& race, bool with_incumbent,
                                                    std::size_t config) const {
  const auto& defaults = job.setup.configs.at(config).defaults;
  gpu::race_inputs inputs;
  if (with_incumbent) {
    const auto& best = job.plan->best();
    inputs.kernels.push_back(launch_of(job, job.branches.at({best.iteration, best.ordinal}), config));
  }
  for (auto ordinal : race.ordinals)
    inputs.kernels.push_back(launch_of(job, job.branches.at({race.iteration, ordinal}), config));
  inputs.reference_cubin = job.reference_cubin;
  inputs.reference_entry = job.setup.reference_entry;
  if (job.setup.problem.reference.kind == config::reference_kind::self)
    inputs.reference_launch = defaults.launch;
  inputs.seed = setup_.spec.proposer.seed;
  inputs.mode = setup_.timing;
  return gpu::make_race_request(defaults, job.setup.problem.reference, inputs);
}

// Records one configuration's answer; while configurations remain and a kernel still passes,
// sends the next configuration's race (those kernels only) to the same GPU and returns true.
bool campaign_engine::race_next_config(job_slot& job, order& o, const gpu::race_result& result, double request_s) {
  const auto& at = job.setup.configs.at(o.config).config;
  o.parts.push_back({at.name, at.weight, o.kernels, result});
  o.request_s += request_s;
  std::vector<std::size_t> passing;
  for (std::size_t s = 0; s < o.kernels.size() && s < result.kernels.size(); ++s)
    if (result.kernels[s].outcome == branch_outcome::passed)
      passing.push_back(o.kernels[s]);
  if (o.config + 1 >= job.setup.configs.size() || passing.empty())
    return false;
  ++o.config;
  o.kernels = std::move(passing);
  auto request = race_request_for(job, o.race, o.with_incumbent, o.config);
  std::vector<gpu::kernel_launch> kernels;
  for (auto k : o.kernels)
    kernels.push_back(request.kernels.at(k));
  request.kernels = std::move(kernels);
  mark_fresh(o, request);
  const auto t = next_ticket();
  orders_[t] = o;
  out_.races.push_back({t, o.gpu, ref_of(job, o.race.iteration, -1), std::move(request)});
  return true;
}

void campaign_engine::raced(ticket id, const gpu::device_info& device, const gpu::race_result& raw, double raw_request_s) {
  update_usage();
  auto it = orders_.find(id);
  if (it == orders_.end())
    return;
  auto o = it->second;
  orders_.erase(it);
  auto& job = *jobs_.at(o.job);
  if (job.closed) { // abandoned while it ran: nothing to record, the GPU is free again
    gpu_busy(gpu_of(o.gpu), false);
    return pump();
  }
  if (race_next_config(job, o, raw, raw_request_s))
    return; // the GPU stays leased for the next configuration
  auto result = gpu::combine_config_races(o.race.ordinals.size() + (o.with_incumbent ? 1 : 0), o.parts);
  double request_s = o.request_s;
  if (limit_gate(job, o, device, result, request_s))
    return; // a kernel faster than physics allows is re-measured first (engine_gate.cpp)
  auto& gpu = gpu_of(o.gpu);
  const double lease_s = now() - gpu.since;
  const auto measured_before = gpu.usage.measured;
  const double kernel_s_before = gpu.usage.kernel_s;
  gpu_busy(gpu, false);
  ++gpu.usage.races;
  first_measured_ = true;
  const std::size_t offset = o.with_incumbent ? 1 : 0;
  race_outcome outcome;
  if (o.with_incumbent && !result.kernels.empty() && result.kernels[0].outcome == branch_outcome::passed) {
    outcome.incumbent_s = result.kernels[0].stats.median_s;
    outcome.incumbent_ci_low_s = result.kernels[0].stats.median_ci.low;
  }
  for (std::size_t i = 0; i < result.kernels.size(); ++i) {
    gpu.usage.kernel_s += result.kernels[i].kernel_s;
    // A candidate measured: a branch of the race the GPU gave a verdict (docs/report.md); the
    // incumbent, timed again as the yardstick, is not one.
    if (i >= offset && result.kernels[i].outcome != branch_outcome::not_run) {
      ++gpu.usage.measured;
      ++measured_;
    }
  }
  for (std::size_t i = 0; i < o.race.ordinals.size(); ++i) {
    auto& slot = job.branches.at({o.race.iteration, o.race.ordinals[i]});
    gpu::kernel_result k;
    if (offset + i < result.kernels.size()) {
      k = result.kernels[offset + i];
    } else {
      k.outcome = branch_outcome::runtime_error;
      k.detail = "the runner answered " + std::to_string(result.kernels.size()) + " kernels for a race of " +
                 std::to_string(o.race.ordinals.size() + offset);
    }
    const storage::branch_key key{job.id, slot.plan.iteration, slot.plan.ordinal};
    if (k.outcome == branch_outcome::passed)
      out_.writes.push_back(measurement_row(key, device, setup_.timing, k,
                                            result.sm_clock_hz_after > 0 ? result.sm_clock_hz_after
                                                                         : result.sm_clock_hz_before));
    out_.events.push_back(kernel_event(job.setup.name, slot.plan, device.ordinal, device, k, result, request_s));
    auto r = result_of(k, slot.sass_absent);
    end_branch(job, slot.plan, r, device.ordinal);
    remember(job, slot.plan, r, device);
    outcome.branches.push_back(std::move(r));
  }
  // What the lease gave, for the throughput `report` reads back (docs/report.md).
  out_.events.push_back(job_event(feed::event_type::gpu_released, job.setup.name, o.race.iteration, feed::no_branch,
                                  device.ordinal,
                                  feed::detail{}.add("request_s", request_s).add("lease_s", lease_s)
                                    .add("kernel_s", gpu.usage.kernel_s - kernel_s_before)
                                    .add("measured", gpu.usage.measured - measured_before).json()));
  job.plan->measured(o.race, outcome);
  pump();
}

void campaign_engine::profiled(ticket id, const diagnosis_summary& summary) {
  update_usage();
  auto it = orders_.find(id);
  if (it == orders_.end())
    return;
  auto o = it->second;
  if (summary.service == gpu::worker_service::out_of_service) // nothing was profiled: another GPU will
    return gpu_out_of_service(id, o.gpu, summary.why_out_of_service);
  orders_.erase(it);
  auto& gpu = gpu_of(o.gpu);
  // A batch's profiles come back together: each gets its share of the lease, and the GPU is free
  // when the last of them is in.
  const double lease_s = (now() - gpu.since) / static_cast<double>(std::max<std::size_t>(1, o.batch));
  gpu.usage.profile_s += lease_s;
  if (std::none_of(orders_.begin(), orders_.end(), [&](const auto& entry) {
        return entry.second.what == order::kind::profile && entry.second.gpu == o.gpu;
      }))
    gpu_busy(gpu, false);
  ++gpu.usage.profiles;
  auto& job = *jobs_.at(o.job);
  if (job.closed)
    return pump();
  out_.events.push_back(job_event(feed::event_type::gpu_released, job.setup.name, o.profile.branch.iteration,
                                  o.profile.branch.ordinal, o.gpu,
                                  feed::detail{}.add("profile", true).add("lease_s", lease_s).json()));
  // An early profile (job_plan::early_profile) of a best that lost its place meanwhile tells
  // nothing about the job: the plan hears of it, nothing is recorded.
  if (const auto& best = job.plan->best(); o.profile.early && o.branch != branch_key{best.iteration, best.ordinal}) {
    job.plan->diagnosed(o.profile, std::nullopt);
    return pump();
  }
  const auto iteration = std::max<std::int64_t>(1, job.plan->iterations_done());
  if (summary.diagnosed) {
    out_.writes.push_back(storage::iteration_update{job.id, iteration,
                                                    job.plan->iterations_done() >= iteration
                                                      ? vocabulary::iteration_state::finished
                                                      : vocabulary::iteration_state::running,
                                                    -1, false, summary.gaps_json});
    out_.events.push_back(job_event(feed::event_type::diagnosis_ready, job.setup.name, iteration, o.profile.branch.ordinal,
                                    o.gpu, summary.gaps_json));
  } else {
    out_.events.push_back(job_event(feed::event_type::warning, job.setup.name, iteration, o.profile.branch.ordinal, o.gpu,
                                    feed::detail{}.add("message", "not diagnosed: " + summary.note).add("component", "profiler").json()));
  }
  job.plan->diagnosed(o.profile, summary.diagnosed ? std::optional<diagnosis_summary>{summary} : std::nullopt);
  pump();
}

// Into the cross-run cache: what a point did on this kind of GPU, for a later run of the problem.
void campaign_engine::remember(job_slot& job, const planned_branch& b, const branch_result& r,
                               const gpu::device_info& device) {
  // A code variant's result belongs to its code, not to the point it leaves at the defaults.
  if (!cache_ || job.problem_id.empty() || !tuning::is_cacheable(r.outcome) || !b.what.source.empty())
    return;
  const tuning::cache_key key{job.problem_id, tuning::gpu_key(device.name, device.arch()),
                              tuning::canonical_text(b.what.point)};
  (void)cache_->put(key, {r.outcome, r.median_s, std::nullopt});
}

} // namespace warpforge::pipeline
