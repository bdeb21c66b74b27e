// The race's timing: each kernel that passed its checks is loaded afresh and warmed until its
// times settle, then all of them are timed in interleaved rounds, one timed launch per kernel and
// round verified (docs/measurement.md, "Timing" and "Timed work is checked work"). Part of
// race_runner (race_runner.hpp); the checks are in race_runner.cpp.
#include "gpu/runtime/race_runner.hpp"

#include "gpu/runtime/cuda_call.hpp"
#include "gpu/runtime/sm_clock.hpp"
#include "gpu/stats/round_stats.hpp"
#include "gpu/stats/stopping_rule.hpp"
#include "gpu/stats/warmup_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace warpforge::gpu {

namespace {

using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point start) {
  return std::chrono::duration<double>(steady::now() - start).count();
}

double sum(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0);
}

} // namespace

bool race_runner::warm_up(std::size_t j, std::uint32_t& batch) {
  const auto& policy = request_.timing;
  auto& out = result_.kernels[j];
  const auto start = steady::now();
  warmup_rule rule{policy};
  const std::size_t window = std::max<std::uint32_t>(policy.warmup_window, 1);
  while (rule.decision() == warmup_decision::keep_going) {
    std::vector<double> times;
    if (auto f = timed_launches(j, *kernels_[j], params_->data(), window, candidate_limit_s_, times)) {
      out.warmup_s = seconds_since(start);
      return fail_kernel(j, *f);
    }
    out.kernel_s += sum(times);
    for (double t : times)
      rule.add(t);
    rule.set_elapsed(seconds_since(start));
  }
  out.warmup_launches = static_cast<std::uint32_t>(rule.launches());
  out.warmup = rule.decision();
  out.warmup_s = seconds_since(start);
  if (out.warmup != warmup_decision::settled)
    out.notes.push_back("warm-up stopped at its " + std::string{to_string(out.warmup)} +
                        " before the times settled (" + std::to_string(rule.launches()) + " launches)");
  // A batch of about batch_time_s of GPU time, so a round stays short.
  const double estimate_s = rule.recent_median_s();
  const double wanted = estimate_s > 0.0 ? std::round(policy.batch_time_s / estimate_s)
                                         : static_cast<double>(policy.max_batch_samples);
  batch = static_cast<std::uint32_t>(
    std::clamp(wanted, 1.0, static_cast<double>(std::max<std::uint32_t>(policy.max_batch_samples, 1))));
  return true;
}

bool race_runner::run_rounds(const std::vector<std::size_t>& kernels,
                             const std::vector<std::uint32_t>& batches) {
  const auto& policy = request_.timing;
  const stopping_rule rule{policy, kernels.size()};
  std::vector<std::vector<std::vector<double>>> samples(kernels.size()); // [kernel][round][sample]
  std::vector<round_summary> summaries(kernels.size());
  std::vector<std::vector<round_summary>> history(kernels.size()); // [kernel][round - 1]: for the order rule
  const auto start = steady::now();
  std::size_t rounds = 0;
  stop_decision decision = stop_decision::keep_going;
  while (decision == stop_decision::keep_going) {
    // Each round starts one kernel further along, so no kernel always follows the same one.
    for (std::size_t q = 0; q < kernels.size(); ++q) {
      const std::size_t k = (rounds + q) % kernels.size();
      const std::size_t j = kernels[k];
      if (has_verdict(j))
        continue; // failed in an earlier round
      const auto batch_start = steady::now();
      std::vector<double> times;
      const bool go_on = verified_batch(j, batches[k], rounds, times);
      result_.kernels[j].timing_s += seconds_since(batch_start);
      if (!go_on)
        return false;
      if (has_verdict(j))
        continue; // inconsistent, or a fault
      samples[k].push_back(std::move(times));
    }
    ++rounds;
    std::vector<round_summary> live;
    std::vector<round_summary> live_at_half; // after rounds/2 rounds: how fast the intervals narrow
    for (std::size_t k = 0; k < kernels.size(); ++k)
      if (!has_verdict(kernels[k])) {
        summaries[k] = summarize_rounds(samples[k]);
        history[k].push_back(summaries[k]);
        live.push_back(summaries[k]);
        if (rounds / 2 >= 1 && history[k].size() == rounds)
          live_at_half.push_back(history[k][rounds / 2 - 1]);
      }
    if (live.empty())
      return false;
    if (live_at_half.size() != live.size())
      live_at_half.clear(); // a kernel missed a round: no pace to read
    decision = rule.decide(live, rounds, seconds_since(start), live_at_half);
  }
  result_.rounds_wall_s = seconds_since(start);
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const std::size_t j = kernels[k];
    if (has_verdict(j))
      continue;
    auto& out = result_.kernels[j];
    set_verdict(j, vocabulary::branch_outcome::passed, "");
    out.stats = summaries[k].stats;
    out.decision = rule.kernel_decision(summaries[k], rounds, decision);
    out.rounds = static_cast<std::uint32_t>(summaries[k].rounds);
    out.round_spread_s = summaries[k].round_spread_s;
    out.batch_samples = batches[k];
  }
  return true;
}

bool race_runner::verified_batch(std::size_t j, std::uint32_t samples, std::size_t round,
                                 std::vector<double>& times_s) {
  auto& out = result_.kernels[j];
  const auto& args = request_.args;
  const std::size_t seed_index = round_seed_index(round, request_.seeds.size());
  if (request_.fresh && !reload_kernel(j))
    return false;
  if (has_verdict(j))
    return true;
  if (!use_seed(seed_index))
    return false;
  const batch_plan plan = plan_batch(samples, !cold(), random_.next());
  const std::uint64_t poison_random = random_.next();
  const pristine_inputs& inputs = seed_inputs_[seed_index];
  const cudaStream_t stream = ws_.stream();
  // Just before the verified launch, outside its events: sparse poison in every output, inouts
  // back to their pristine values (the launches before changed them).
  auto poison = [&]() -> std::optional<launch_failure> {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const auto* b = std::get_if<candidate_buffer_arg>(&args[i]);
      if (!b || b->role == config::arg_role::input)
        continue;
      const call_result r =
        b->role == config::arg_role::output
          ? ws_.checks().sparse_poison(b->type, sparse_poison_for(poison_random ^ i, b->count), working_[i], b->count, stream)
          : WARPFORGE_GPU_CALL(cudaMemcpyAsync(working_[i], inputs[i]->buffers[0].ptr,
                                               b->count * config::size_of(b->type), cudaMemcpyDeviceToDevice, stream));
      if (!r)
        return cuda_failure(r.error(), "poisoning '" + b->name + "' before a verified launch");
    }
    return std::nullopt;
  };
  std::vector<double> times;
  if (auto f = timed_launches(j, *kernels_[j], params_->data(), plan.first_part(), candidate_limit_s_, times, poison))
    return fail_kernel(j, *f);
  out.kernel_s += sum(times);
  times_s.assign(times.begin() + plan.lead_in, times.end());
  auto mismatch = compare_working(inputs, *seed_references_[seed_index]);
  if (!mismatch) {
    fail_all(mismatch.error());
    return false;
  }
  if (*mismatch) {
    const std::uint64_t seed = request_.seeds[seed_index];
    set_verdict(j, vocabulary::branch_outcome::inconsistent,
                "passed its checked launches, but timed launch " + std::to_string(plan.verified_launch()) +
                  " of the " + std::to_string(plan.launches()) + " in its batch of round " +
                  std::to_string(round + 1) + " (seed " + std::to_string(seed) +
                  ", outputs poisoned at random positions just before it) left wrong or stale output: " +
                  (*mismatch)->what);
    out.seed = seed;
    out.arg = (*mismatch)->arg;
    out.compare = (*mismatch)->compare;
    out.input = (*mismatch)->input;
    return any_pending();
  }
  if (plan.second_part() == 0)
    return true;
  times.clear();
  if (auto f = timed_launches(j, *kernels_[j], params_->data(), plan.second_part(), candidate_limit_s_, times))
    return fail_kernel(j, *f);
  out.kernel_s += sum(times);
  times_s.insert(times_s.end(), times.begin() + plan.settle, times.end());
  return true;
}

bool race_runner::time_passed_kernels() {
  std::vector<std::size_t> passed;
  for (std::size_t j = 0; j < kernels_.size(); ++j)
    if (!has_verdict(j))
      passed.push_back(j);
  if (passed.empty())
    return false;
  // Each kernel's module is loaded again: what it kept in __device__ variables during its checks
  // (inputs seen, launches counted, pointers) is gone before it is timed.
  for (std::size_t j : passed)
    if (!reload_kernel(j))
      return false;
  phases_.mark("modules reloaded");
  // Warm-ups run on the first seed's inputs; the rounds take the seeds in turn.
  if (!use_seed(0))
    return false;
  char seed_text[32];
  std::snprintf(seed_text, sizeof seed_text, "%016llx", static_cast<unsigned long long>(random_.seed()));
  result_.notes.push_back("timed launches verified: in every round, one per kernel at random (outputs poisoned at "
                          "1 in " + std::to_string(sparse_poison_one_in) + " random positions before it, compared "
                          "after it, outside its events); rounds alternate the " + std::to_string(request_.seeds.size()) +
                          " seeds; modules loaded again after the checks; verification seed " + seed_text);
  if (cold())
    result_.notes.push_back("cold: L2 flushed before each launch by a memset of " +
                            std::to_string(l2_flush_size_factor) + "x the L2 size, outside the events");
  result_.sm_clock_hz_before = sm_clock_hz(result_.notes);
  phases_.mark("clock read");
  std::vector<std::size_t> timed;
  std::vector<std::uint32_t> batches;
  for (std::size_t j : passed) {
    if (has_verdict(j))
      continue; // its module did not load again
    std::uint32_t batch = 1;
    if (!warm_up(j, batch))
      return false;
    if (has_verdict(j))
      continue;
    timed.push_back(j);
    batches.push_back(batch);
  }
  phases_.mark("warm-ups");
  if (timed.empty())
    return false;
  const bool done = run_rounds(timed, batches);
  phases_.mark("rounds");
  result_.sm_clock_hz_after = sm_clock_hz(result_.notes);
  phases_.mark("clock read");
  return done;
}

} // namespace warpforge::gpu
