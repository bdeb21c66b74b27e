#include "gpu/runtime/timed_verification.hpp"

#include "gpu/check/counter_generator.hpp"

namespace warpforge::gpu {

namespace {

// A value in [0, n) from 64 random bits (multiply-shift: bias below n / 2^64).
std::uint64_t below(std::uint64_t random, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(random) * n) >> 64);
}

} // namespace

batch_plan plan_batch(std::uint32_t samples, bool warm, std::uint64_t random) {
  if (samples == 0)
    samples = 1;
  batch_plan plan;
  plan.lead_in = warm && samples >= 2 ? 1 : 0;
  // Without a lead-in the first sample is the first launch on the round's inputs: verify
  // another when there is one.
  const std::uint32_t first = plan.lead_in == 0 && samples >= 2 ? 1 : 0;
  const auto verified = first + static_cast<std::uint32_t>(below(random, samples - first));
  plan.samples_before = verified;
  plan.samples_after = samples - 1 - verified;
  plan.settle = warm && plan.samples_after > 0 ? 1 : 0;
  return plan;
}

std::size_t round_seed_index(std::size_t round, std::size_t seed_count) {
  return seed_count == 0 ? 0 : round % seed_count;
}

sparse_poison sparse_poison_for(std::uint64_t random, std::uint64_t count) {
  sparse_poison p;
  p.key = generator::splitmix64_mix(random);
  p.always = count == 0 ? 0 : below(generator::splitmix64_mix(random ^ generator::golden_gamma), count);
  return p;
}

bool is_poisoned(const sparse_poison& p, std::uint64_t index) {
  return index == p.always || (generator::splitmix64_mix(p.key + index) & (p.one_in - 1)) == 0;
}

std::uint64_t verification_random::next() {
  state_ += generator::golden_gamma;
  return generator::splitmix64_mix(state_);
}

} // namespace warpforge::gpu
