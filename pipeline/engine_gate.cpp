// The campaign engine's gates between a race's answer and the plan's election (physical_limit.hpp,
// docs/measurement.md "Which tricks are refused where"): a kernel measured faster than the least
// time physics allows is raced again alone, fresh and cold, on the same GPU (the GPU stays leased,
// the race's answer is held); still too fast, it is recorded `suspicious` with both numbers and the
// plan never sees it pass. The code check's notes (lower precision allowed) join the branch here.

#include "pipeline/campaign_engine.hpp"
#include "pipeline/engine_slots.hpp"

#include "diagnosis/gpu_specs.hpp"
#include "pipeline/code_check.hpp"
#include "pipeline/diagnose_metrics.hpp"
#include "pipeline/physical_limit.hpp"
#include "gpu/runner/runner_client.hpp"
#include "gpu/runner/sanitize.hpp"

#include <algorithm>

namespace warpforge::pipeline {

namespace {
using vocabulary::branch_outcome;
} // namespace

// The least time of the job's work on `device`: the configurations' limits, weighted as their
// medians are (gpu/runner/config_race.hpp).
physical_limit campaign_engine::job_limit(const job_slot& job, const gpu::device_info& device, bool fresh) const {
  const auto gpu = diagnosis::describe_gpu(diagnosis::builtin_gpu_table(), properties_of(device));
  const auto type = problem_float_type(job.setup.problem);
  const auto peaks = peaks_for(gpu, type.value_or(config::dtype::i32), lower_precision_allowed(job.setup.problem));
  const auto mode = fresh ? vocabulary::timing_mode::cold : setup_.timing;
  physical_limit total;
  for (const auto& at : job.setup.configs) {
    std::optional<double> flop;
    if (at.defaults.flop)
      flop = static_cast<double>(*at.defaults.flop);
    const auto one = limit_for(work_of(at.defaults, mode, flop), peaks);
    total.memory_s += at.config.weight * one.memory_s;
    total.compute_s += at.config.weight * one.compute_s;
    total.dram_bytes += at.config.weight * one.dram_bytes;
    if (total.basis.empty() || job.setup.configs.size() == 1)
      total.basis = one.basis;
  }
  if (job.setup.configs.size() > 1)
    total.basis = "weighted over " + std::to_string(job.setup.configs.size()) + " configurations; the first: " + total.basis;
  return total;
}

bool campaign_engine::limit_gate(job_slot& job, order& o, const gpu::device_info& device, gpu::race_result& result,
                                 double& request_s) {
  if (o.held) { // the fresh re-measure of the kernels that looked too fast: judge, then the race
    auto held = std::move(*o.held);
    o.held.reset();
    const auto limit = job_limit(job, device, true);
    for (std::size_t s = 0; s < held.suspects.size(); ++s) {
      auto& k = held.result.kernels.at(held.suspects[s]);
      const double first_s = k.stats.median_s;
      if (s >= result.kernels.size() || result.kernels[s].outcome != branch_outcome::passed) {
        const auto again = s < result.kernels.size() ? result.kernels[s] : gpu::kernel_result{};
        k.outcome = again.outcome == branch_outcome::passed ? branch_outcome::runtime_error : again.outcome;
        k.detail = "measured below the physical limit, then re-measured fresh and cold: " +
                   std::string{vocabulary::to_string(again.outcome)} + (again.detail.empty() ? "" : ": " + again.detail);
      } else if (judge(result.kernels[s].stats.median_s, limit, true) == limit_verdict::suspicious) {
        k.outcome = branch_outcome::suspicious;
        k.detail = limit_detail(first_s, result.kernels[s].stats.median_s, limit);
      } else {
        k.notes.push_back("re-measured fresh and cold after a time below the physical limit: " +
                          std::to_string(result.kernels[s].stats.median_s) + " s, within the limit " +
                          std::to_string(limit.seconds()) + " s (" + limit.basis + ")");
      }
    }
    result = std::move(held.result);
    request_s += held.request_s;
    o.race = std::move(held.race);
    o.with_incumbent = held.with_incumbent;
  } else {
    const auto limit = job_limit(job, device, false);
    const std::size_t offset = o.with_incumbent ? 1 : 0; // the incumbent was judged when it won
    std::vector<std::size_t> suspects;
    race_plan again{o.race.iteration, {}, false, o.race.gpu};
    for (std::size_t i = 0; i < o.race.ordinals.size() && offset + i < result.kernels.size(); ++i) {
      const auto& k = result.kernels[offset + i];
      if (k.outcome == branch_outcome::passed && judge(k.stats.median_s, limit, false) == limit_verdict::reverify_cold) {
        suspects.push_back(offset + i);
        again.ordinals.push_back(o.race.ordinals[i]);
      }
    }
    if (!suspects.empty()) {
      auto fresh = o;
      fresh.held = held_race{o.race, o.with_incumbent, result, suspects, request_s};
      fresh.race = again;
      fresh.with_incumbent = false;
      fresh.config = 0;
      fresh.parts.clear();
      fresh.request_s = 0;
      fresh.kernels.clear();
      for (std::size_t k = 0; k < suspects.size(); ++k)
        fresh.kernels.push_back(k);
      auto request = race_request_for(job, again, false, 0);
      mark_fresh(fresh, request);
      const auto t = next_ticket();
      orders_[t] = std::move(fresh);
      out_.races.push_back({t, o.gpu, ref_of(job, o.race.iteration, -1), std::move(request)});
      out_.events.push_back(job_event(feed::event_type::warning, job.setup.name, o.race.iteration, feed::no_branch,
                                      o.gpu,
                                      feed::detail{}.add("message", std::to_string(suspects.size()) +
                                                                      " kernel(s) measured below the physical limit (" +
                                                                      limit.basis + "): re-measuring fresh and cold")
                                        .add("component", "scheduler").json()));
      return true; // the GPU stays leased for the re-measure
    }
  }
  // The code check's notes join the branch's result and its event.
  const std::size_t offset = o.with_incumbent ? 1 : 0;
  for (std::size_t i = 0; i < o.race.ordinals.size() && offset + i < result.kernels.size(); ++i) {
    const auto& note = job.branches.at({o.race.iteration, o.race.ordinals[i]}).code_note;
    auto& k = result.kernels[offset + i];
    if (!note.empty() && k.outcome == branch_outcome::passed) {
      k.notes.push_back(note);
      k.detail = k.detail.empty() ? note : note + "; " + k.detail;
    }
  }
  if (setup_.spec.sanitize_champion)
    sanitize_champion(job, o, device, result);
  return false;
}

// The kernel this race would crown (the fastest that passed, and beat the incumbent when one
// ran) replays its launch once under compute-sanitizer memcheck; an error makes it incorrect and
// the next fastest is tried, so whatever the plan elects from this race was sanitized or says why
// not. Blocking: the GPU stays leased meanwhile (no race can time beside it).
void campaign_engine::sanitize_champion(job_slot& job, const order& o, const gpu::device_info& device,
                                        gpu::race_result& result) {
  const std::size_t offset = o.with_incumbent ? 1 : 0;
  std::optional<double> bar; // the incumbent's median in this race
  if (o.with_incumbent && !result.kernels.empty() && result.kernels[0].outcome == branch_outcome::passed)
    bar = result.kernels[0].stats.median_s;
  std::vector<std::size_t> order_of_speed;
  for (std::size_t i = 0; i < o.race.ordinals.size() && offset + i < result.kernels.size(); ++i) {
    const auto& k = result.kernels[offset + i];
    const bool ablation = job.branches.at({o.race.iteration, o.race.ordinals[i]}).plan.what.kind ==
                          vocabulary::branch_kind::ablation; // judges a method; never crowned
    if (k.outcome == branch_outcome::passed && !ablation && (!bar || k.stats.median_s < *bar))
      order_of_speed.push_back(i);
  }
  std::sort(order_of_speed.begin(), order_of_speed.end(), [&](std::size_t a, std::size_t b) {
    return result.kernels[offset + a].stats.median_s < result.kernels[offset + b].stats.median_s;
  });
  const auto sanitizer = gpu::find_compute_sanitizer();
  const auto runner = gpu::locate_runner();
  for (auto i : order_of_speed) {
    auto& k = result.kernels[offset + i];
    const auto folder = branch_folder(setup_.run_dir, job.setup.name, o.race.iteration, o.race.ordinals[i]);
    gpu::sanitize_result checked;
    if (!sanitizer) {
      checked = {gpu::sanitize_status::not_found, 0, {}, "not sanitized: compute-sanitizer not found"};
    } else if (!runner) {
      checked = {gpu::sanitize_status::failed, 0, {}, "not sanitized: " + runner.error().to_string()};
    } else {
      gpu::sanitize_options options;
      options.sanitizer = *sanitizer;
      options.runner = *runner;
      options.work_dir = folder;
      if (!device.uuid.empty())
        options.visible_devices = device.uuid;
      checked = gpu::sanitize_launch(folder / ("request-" + arch() + ".json"), options);
    }
    out_.events.push_back(job_event(feed::event_type::warning, job.setup.name, o.race.iteration, o.race.ordinals[i],
                                    device.ordinal,
                                    feed::detail{}.add("message", checked.note).add("component", "sanitizer")
                                      .add("sanitize", gpu::to_string(checked.status)).json()));
    if (checked.status == gpu::sanitize_status::errors) {
      k.outcome = branch_outcome::incorrect;
      k.detail = checked.note;
      continue; // the next fastest would be crowned instead: it is sanitized too
    }
    k.notes.push_back(checked.note);
    if (checked.status != gpu::sanitize_status::clean) // never a pass: the branch says it was not sanitized
      k.detail = k.detail.empty() ? checked.note : checked.note + "; " + k.detail;
    return;
  }
}

// A fresh re-measure whose GPU went out of service: the order becomes its whole race again, to be
// raced from the start elsewhere (or ended not_run with the GPU, where the race was pinned to it),
// so no branch of the race is left waiting for an answer that will not come.
void campaign_engine::unhold(order& o) const {
  if (!o.held)
    return;
  o.race = std::move(o.held->race);
  o.with_incumbent = o.held->with_incumbent;
  o.held.reset();
}

void campaign_engine::mark_fresh(const order& o, gpu::race_request& request) const {
  if (!o.held)
    return;
  request.fresh = true;
  request.mode = vocabulary::timing_mode::cold;
}

} // namespace warpforge::pipeline
