#pragma once
// The two instruction techniques, written once and given one operation by each benchmark:
//
//   latency:    one warp runs a dependent chain (each step needs the last one's result). It runs
//               twice, with 64 and with 128 steps per loop iteration; the difference in cycles
//               over the difference in steps is the latency, with the loop's own instructions and
//               the clock reads cancelled out.
//   throughput: one block of 1024 threads per SM (kernels/common.cuh: one block per SM), each
//               thread running `Chains` independent chains; each block's operations over its
//               SM's cycles, median over the SMs.
//
// An operation is a struct:
//   struct op {
//     using value = T;                    // what a chain carries (a register, or a fragment)
//     struct params { ... };              // runtime constants, so nothing folds at compile time
//     static constexpr double ops_per_step = 1; // what one thread's step counts, in the unit
//     __device__ static value start(const params&, int chain);
//     __device__ static value step(value, const params&);
//   };
// Every chain's final value is stored to a sink, so no step is dead code.

#include "common.cuh"

template <class Op, int Steps>
__global__ void wf_latency_kernel(typename Op::params p, typename Op::value* sink,
                                  wf_window* window, int iterations) {
  typename Op::value x = Op::start(p, 0);
  const wf_window_start start = wf_open_window();
#pragma unroll 1 // one loop trip = exactly Steps steps, so the two runs differ only in steps
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int s = 0; s < Steps; ++s)
      x = Op::step(x, p);
  }
  const wf_window closed = wf_close_window(start);
  sink[threadIdx.x] = x;
  if (threadIdx.x == 0)
    *window = closed;
}

struct wf_latency_result {
  double cycles_per_step = 0; // cycles
  double sm_clock_mhz = 0;    // MHz, over both runs
};

template <class Op, int Steps>
static wf_window wf_run_latency(const typename Op::params& p, int iterations) {
  wf_buffer<typename Op::value> sink(32);
  wf_buffer<wf_window> window(1);
  for (int run = 0; run < 2; ++run) { // the first run warms the instruction cache
    wf_latency_kernel<Op, Steps><<<1, 32>>>(p, sink.data, window.data, iterations);
    wf_sync_kernel("the latency chain");
  }
  return window.to_host()[0];
}

// One warp, `iterations` loop trips of 64 and of 128 dependent steps.
template <class Op>
static wf_latency_result wf_measure_latency(const typename Op::params& p, int iterations) {
  const wf_window short_run = wf_run_latency<Op, 64>(p, iterations);
  const wf_window long_run = wf_run_latency<Op, 128>(p, iterations);
  const double extra_steps = 64.0 * iterations;
  const double extra_cycles = static_cast<double>(long_run.cycles - short_run.cycles);
  if (extra_cycles <= 0)
    wf_fail("the longer chain took no more cycles than the shorter one");
  return {extra_cycles / extra_steps, wf_clock_mhz({short_run, long_run})};
}

template <class Op, int Chains, int Unroll>
__global__ void __launch_bounds__(1024)
    wf_throughput_kernel(typename Op::params p, typename Op::value* sink, wf_window* windows,
                         int iterations) {
  typename Op::value x[Chains];
#pragma unroll
  for (int c = 0; c < Chains; ++c)
    x[c] = Op::start(p, c);
  __syncthreads();
  const wf_window_start start = wf_open_window();
#pragma unroll 1
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
#pragma unroll
      for (int c = 0; c < Chains; ++c)
        x[c] = Op::step(x[c], p);
    }
  }
  __syncthreads();
  const wf_window closed = wf_close_window(start);
  const std::size_t thread = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
#pragma unroll
  for (int c = 0; c < Chains; ++c)
    sink[thread * Chains + c] = x[c];
  if (threadIdx.x == 0)
    windows[blockIdx.x] = closed;
}

struct wf_throughput_result {
  double per_clock_per_sm = 0; // the operation's unit per SM clock cycle, per SM
  double sm_clock_mhz = 0;     // MHz, over every SM's window
};

// One block of `threads` per SM; each thread runs Chains x Unroll steps per loop trip.
template <class Op, int Chains, int Unroll>
static wf_throughput_result wf_measure_throughput(const typename Op::params& p, int iterations,
                                                  int threads = 1024) {
  const cudaDeviceProp prop = wf_device();
  auto kernel = wf_throughput_kernel<Op, Chains, Unroll>;
  const std::size_t smem = wf_one_block_per_sm(kernel, prop);
  const int blocks = prop.multiProcessorCount;
  wf_buffer<typename Op::value> sink(static_cast<std::size_t>(blocks) * threads * Chains);
  wf_buffer<wf_window> windows(blocks);
  for (int run = 0; run < 2; ++run) { // the first run warms up (clocks, instruction cache)
    kernel<<<blocks, threads, smem>>>(p, sink.data, windows.data, iterations);
    wf_sync_kernel("the throughput chains");
  }
  const std::vector<wf_window> measured = windows.to_host();
  const double ops_per_block =
      Op::ops_per_step * threads * static_cast<double>(iterations) * Unroll * Chains;
  std::vector<double> rates;
  for (const auto& window : measured) {
    if (window.cycles <= 0)
      wf_fail("a block measured no cycles");
    rates.push_back(ops_per_block / static_cast<double>(window.cycles));
  }
  return {wf_median(rates), wf_clock_mhz(measured)};
}
