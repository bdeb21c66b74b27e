#pragma once
// Timed work is checked work (docs/measurement.md, "Timed work is checked work"): the choices the
// runner makes so that the launches that produce samples are verified, not only a separate
// checked launch. Plain C++ (no CUDA call here), so the choices are unit-tested on the CPU; the
// runner's rounds (race_timing.cpp) carry them out.
//
//   verification_random random{race_seed};                    // one per race, from random_device
//   const auto seed_index = round_seed_index(round, request.seeds.size());   // inputs of the round
//   const auto plan = plan_batch(samples, warm, random.next());   // which launch is verified
//   const auto poison = sparse_poison_for(random.next(), out_count);  // where it is poisoned
//
// Per round, for each kernel: the working inputs hold the round's seed (refreshed outside the
// events when it changes); one timed launch, chosen at random, has its outputs poisoned at
// sparse random positions just before it and compared with the reference of those inputs just
// after it (both outside its events); a kernel that skipped the work leaves poison or stale
// values there and gets `inconsistent`.

#include <cstddef>
#include <cstdint>

namespace warpforge::gpu {

/// One in this many output elements (on average) is poisoned before a verified launch, at
/// positions drawn per round; at least one always is. Sparse so that a kernel that samples a few
/// of its outputs to notice the poison (and only then does the work) misses it: sampling k fixed
/// elements sees a poisoned one with probability about k / sparse_poison_one_in per round, and it
/// must see one in every round to escape. A power of two (the device tests a mask).
inline constexpr std::uint64_t sparse_poison_one_in = 256;

/// The launches of one kernel's batch in one round, in queue order:
///   lead_in launches (untimed: warm mode's cache lead-in),
///   samples_before samples, the verified sample, [a settle launch], samples_after samples.
/// The batch is queued in two parts split at the verified launch: part one ends with it (the
/// poison goes in just before it, outside its events; the comparison just after, then the runner
/// reads the verdict), part two is the rest. Every sample, the verified one included, counts.
struct batch_plan {
  std::uint32_t lead_in = 0;        // 0 or 1 untimed launches first
  std::uint32_t samples_before = 0; // samples before the verified one
  std::uint32_t samples_after = 0;  // samples after it
  std::uint32_t settle = 0;         // 0 or 1 untimed launches right after the verified one (warm
                                    // mode, when samples follow: the comparison has just read
                                    // the outputs and the reference, so the next sample would
                                    // find the caches as the check left them, not as the kernel)

  std::uint32_t samples() const { return samples_before + 1 + samples_after; }
  /// Launches in part one (ends with the verified launch) and part two.
  std::uint32_t first_part() const { return lead_in + samples_before + 1; }
  std::uint32_t second_part() const { return settle + samples_after; }
  /// The verified launch's index among all the batch's launches (as a verdict names it).
  std::uint32_t verified_launch() const { return lead_in + samples_before; }
  std::uint32_t launches() const { return first_part() + second_part(); }
};

/// The batch of `samples` (>= 1) samples in `warm` mode, its verified launch drawn from `random`:
/// warm mode with two samples or more starts with a lead-in (as before verification existed);
/// the verified sample is any sample but the first launch after the inputs changed, when the
/// batch has another (a kernel that works only on new inputs does that one honestly: verifying
/// a later one is what catches it).
batch_plan plan_batch(std::uint32_t samples, bool warm, std::uint64_t random);

/// The index into the request's seeds of the inputs round `round` (0-based) runs on: the seeds in
/// turn, so consecutive rounds run on different inputs whenever the request has two or more.
/// Round 0 uses seeds[0], the inputs the warm-up ran on.
std::size_t round_seed_index(std::size_t round, std::size_t seed_count);

/// Where one verified launch's output is poisoned: element i when
/// (splitmix64_mix(key + i) & (one_in - 1)) == 0, and always element `always`
/// (splitmix64_mix: gpu/check/counter_generator.hpp, on both sides).
struct sparse_poison {
  std::uint64_t key = 0;
  std::uint64_t one_in = sparse_poison_one_in; // a power of two
  std::uint64_t always = 0;                    // < the buffer's element count
};

/// The positions for a buffer of `count` (>= 1) elements, drawn from `random`.
sparse_poison sparse_poison_for(std::uint64_t random, std::uint64_t count);

/// Whether element `index` is poisoned under `p` (the host's copy of the device kernel's rule,
/// warpforge_sparse_poison in check_kernels.cu).
bool is_poisoned(const sparse_poison& p, std::uint64_t index);

/// The race's own random stream (SplitMix64 over a counter): the seed comes from
/// std::random_device, so a kernel cannot know which launch is verified or where the poison
/// lies; it is reported in the race's notes so a verdict can be replayed.
class verification_random {
public:
  explicit verification_random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  std::uint64_t seed() const { return seed_; }

private:
  std::uint64_t state_;
  std::uint64_t seed_ = state_;
};

} // namespace warpforge::gpu
