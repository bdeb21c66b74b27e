// The race's timing: each kernel that passed its checks is warmed until its times settle, then
// all of them are timed in interleaved rounds (docs/measurement.md, "Timing"). Part of
// race_runner (race_runner.hpp); the checks are in race_runner.cpp.
#include "gpu/runtime/race_runner.hpp"

#include "gpu/runtime/sm_clock.hpp"
#include "gpu/stats/round_stats.hpp"
#include "gpu/stats/stopping_rule.hpp"
#include "gpu/stats/warmup_rule.hpp"

#include <algorithm>
#include <cmath>
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
  const bool warm = request_.mode == vocabulary::timing_mode::warm;
  std::vector<std::vector<std::vector<double>>> samples(kernels.size()); // [kernel][round][sample]
  std::vector<round_summary> summaries(kernels.size());
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
      // Warm mode: one untimed lead-in launch, so the first sample of the batch finds the
      // caches as its own kernel left them, not as the previous kernel did.
      const std::size_t lead_in = warm && batches[k] >= 2 ? 1 : 0;
      const auto batch_start = steady::now();
      std::vector<double> times;
      if (auto f = timed_launches(j, *kernels_[j], params_->data(), batches[k] + lead_in,
                                  candidate_limit_s_, times)) {
        if (!fail_kernel(j, *f))
          return false;
        continue;
      }
      auto& out = result_.kernels[j];
      out.kernel_s += sum(times);
      out.timing_s += seconds_since(batch_start);
      samples[k].emplace_back(times.begin() + static_cast<std::ptrdiff_t>(lead_in), times.end());
    }
    ++rounds;
    std::vector<round_summary> live;
    for (std::size_t k = 0; k < kernels.size(); ++k)
      if (!has_verdict(kernels[k])) {
        summaries[k] = summarize_rounds(samples[k]);
        live.push_back(summaries[k]);
      }
    if (live.empty())
      return false;
    decision = rule.decide(live, rounds, seconds_since(start));
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

bool race_runner::time_passed_kernels() {
  std::vector<std::size_t> passed;
  for (std::size_t j = 0; j < kernels_.size(); ++j)
    if (!has_verdict(j))
      passed.push_back(j);
  if (passed.empty())
    return false;
  // Every kernel is timed on the first seed's inputs, in the same working buffers.
  auto inputs = ws_.pristine(request_.args, request_.seeds.front(), result_.inputs_s);
  if (!inputs) {
    fail_all(inputs.error());
    return false;
  }
  if (auto f = ws_.refresh(request_.args, *inputs, working_)) {
    fail_all(*f);
    return false;
  }
  if (request_.mode == vocabulary::timing_mode::cold)
    result_.notes.push_back("cold: L2 flushed before each launch by a memset of " +
                            std::to_string(l2_flush_size_factor) + "x the L2 size, outside the events");
  result_.sm_clock_hz_before = sm_clock_hz(result_.notes);
  std::vector<std::size_t> timed;
  std::vector<std::uint32_t> batches;
  for (std::size_t j : passed) {
    std::uint32_t batch = 1;
    if (!warm_up(j, batch))
      return false;
    if (has_verdict(j))
      continue;
    timed.push_back(j);
    batches.push_back(batch);
  }
  if (timed.empty())
    return false;
  const bool done = run_rounds(timed, batches);
  result_.sm_clock_hz_after = sm_clock_hz(result_.notes);
  return done;
}

} // namespace warpforge::gpu
