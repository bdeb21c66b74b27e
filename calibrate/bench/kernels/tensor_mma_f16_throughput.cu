// tensor_mma_f16_throughput (FLOP/clk/SM, 2 x 16 x 8 x 16 FLOP per warp-wide mma.sync m16n8k16): one block of 1024 threads on every SM,
// 4 independent chains per thread (8 steps of each per loop trip); each block's
// operations over its SM's cycles, median over the SMs (kernels/chain.cuh).
#include "ops.cuh"

static mma_f16_op::params mma_params() {
  mma_f16_op::params p{};
  for (auto& a : p.a) a = wf_small_half2;
  for (auto& b : p.b) b = wf_small_half2;
  return p;
}

int main() {
  const wf_throughput_result r =
      wf_measure_throughput<mma_f16_op, 4, 8>(mma_params(), 1024);
  wf_print_result(r.per_clock_per_sm, r.sm_clock_mhz);
}
