// max_registers_per_thread (registers): two one-warp kernels whose threads keep 300 and 600
// values live (more than any thread may hold) under __launch_bounds__(32, 1), which lifts every
// occupancy cap on registers, so ptxas gives each the most registers a thread may have. The value
// is the register count the runtime reports (cudaFuncGetAttributes::numRegs), taken only when
// doubling the demand leaves it unchanged (the limit decided, not the demand); the larger kernel
// then runs once for the clock.
#include "common.cuh"

template <int LiveValues>
__global__ void __launch_bounds__(32, 1) hungry(const float* seed, float* sink, wf_window* window) {
  float v[LiveValues];
#pragma unroll
  for (int i = 0; i < LiveValues; ++i)
    v[i] = seed[i];
  const wf_window_start start = wf_open_window();
  while (wf_globaltimer_ns() - start.ns < 1000000) { // about 1 ms, for a clock estimate
#pragma unroll
    for (int i = 0; i < LiveValues; ++i)
      v[i] = fmaf(v[i], 0.999f, 0.001f * i);
  }
  const wf_window closed = wf_close_window(start);
  float sum = 0;
#pragma unroll
  for (int i = 0; i < LiveValues; ++i)
    sum += v[i];
  sink[threadIdx.x] = sum;
  if (threadIdx.x == 0)
    *window = closed;
}

int main() {
  wf_device();
  cudaFuncAttributes demand{}, doubled{};
  WF_CHECK(cudaFuncGetAttributes(&demand, hungry<300>));
  WF_CHECK(cudaFuncGetAttributes(&doubled, hungry<600>));
  std::printf("# numRegs with 300 live values: %d, with 600: %d (spill bytes per thread %zu)\n",
              demand.numRegs, doubled.numRegs, doubled.localSizeBytes);
  if (demand.numRegs != doubled.numRegs)
    wf_fail("the register count grew with the demand: no limit was reached");
  wf_buffer<float> seed(600), sink(32);
  wf_buffer<wf_window> window(1);
  hungry<600><<<1, 32>>>(seed.data, sink.data, window.data);
  wf_sync_kernel("the register-hungry kernel");
  wf_print_result(doubled.numRegs, wf_clock_mhz(window.to_host()));
}
