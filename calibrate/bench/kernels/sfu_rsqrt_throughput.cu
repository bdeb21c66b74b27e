// sfu_rsqrt_throughput (ops/clk/SM, one op = one thread's MUFU.RSQ): one block of 1024 threads on every SM,
// 8 independent chains per thread (8 steps of each per loop trip); each block's
// operations over its SM's cycles, median over the SMs (kernels/chain.cuh).
#include "ops.cuh"

int main() {
  const wf_throughput_result r =
      wf_measure_throughput<rsqrt_op, 8, 8>({0.0f}, 1024);
  wf_print_result(r.per_clock_per_sm, r.sm_clock_mhz);
}
