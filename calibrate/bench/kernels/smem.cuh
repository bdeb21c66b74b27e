#pragma once
// Shared-memory chains for kernels/chain.cuh's latency harness. Each lane follows shared-memory
// addresses it loads (ld.shared.u32 of a 32-bit shared address), so every step is one LDS that
// needs the last one's value.

#include "chain.cuh"

constexpr int wf_probe_words = 32 * 64 + 1; // room for 32 lanes at a stride of up to 64 words

__device__ __forceinline__ unsigned wf_shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Every lane reads the word at lane * stride_words: a self-loop per lane, so each step repeats the
// same access pattern, which puts `ways` lanes on one bank when stride_words shares factors with
// the bank count. stride_words = 0 is the broadcast (all lanes one word: no conflict).
struct smem_probe_op {
  using value = unsigned;
  struct params { unsigned stride_words; };
  static constexpr double ops_per_step = 1;
  __device__ static value start(const params& p, int) {
    __shared__ unsigned words[wf_probe_words];
    const unsigned lane = threadIdx.x % 32;
    const unsigned index = (lane * p.stride_words) % wf_probe_words;
    words[index] = wf_shared_address(&words[index]);
    __syncwarp();
    return wf_shared_address(&words[index]);
  }
  __device__ static value step(value address, const params&) {
    asm volatile("ld.shared.u32 %0, [%0];" : "+r"(address));
    return address;
  }
};

struct wf_bank_sweep {
  std::vector<unsigned> strides_words; // 1, 2, 4, ... 64
  std::vector<double> cycles;          // per step (one warp-wide LDS), per stride
  std::vector<double> clocks_mhz;      // per stride's measurement, MHz
  double sm_clock_mhz() const {        // each measurement spans about as long: a plain mean
    double sum = 0;
    for (const double clock : clocks_mhz)
      sum += clock;
    return sum / static_cast<double>(clocks_mhz.size());
  }
};

// The latency of a warp-wide LDS at power-of-two strides of 1 .. 64 words; prints the curve
// (curve_x = stride in bytes, curve_y = cycles per access).
static wf_bank_sweep wf_sweep_bank_strides() {
  wf_bank_sweep sweep;
  for (unsigned stride = 1; stride <= 64; stride *= 2) {
    const wf_latency_result r = wf_measure_latency<smem_probe_op>({stride}, 256);
    sweep.strides_words.push_back(stride);
    sweep.cycles.push_back(r.cycles_per_step);
    sweep.clocks_mhz.push_back(r.sm_clock_mhz);
    wf_print_curve_point(4.0 * stride, r.cycles_per_step);
  }
  return sweep;
}

// The bank count: the smallest stride (in 4-byte words) whose cost no longer grows when the
// stride doubles (every lane already on one bank), and that costs more than stride 1.
static unsigned wf_banks_from(const wf_bank_sweep& sweep, double flat_tolerance = 0.05) {
  for (std::size_t i = 0; i + 1 < sweep.cycles.size(); ++i)
    if (sweep.cycles[i] > sweep.cycles[0] * (1 + flat_tolerance) &&
        sweep.cycles[i + 1] <= sweep.cycles[i] * (1 + flat_tolerance))
      return sweep.strides_words[i];
  wf_fail("the bank-conflict cost never levelled off: no bank count found");
  return 0;
}
