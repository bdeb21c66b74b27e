// sm_clock_mhz (MHz): one block of 1024 threads per SM running independent FFMA chains for about
// 20 ms (chain.cuh's throughput harness, after a warm-up launch that lets the clock rise); each
// SM's clock64 cycles over its %globaltimer nanoseconds. The value is the clock over every SM's
// window. Clocks are never locked: this is the clock a busy kernel gets, not a maximum.
#include "ops.cuh"

int main() {
  const wf_throughput_result r = wf_measure_throughput<ffma_op, 8, 16>({0.5f, 0.25f}, 40000);
  wf_print_result(r.sm_clock_mhz, r.sm_clock_mhz);
}
