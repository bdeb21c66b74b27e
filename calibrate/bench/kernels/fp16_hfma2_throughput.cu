// fp16_hfma2_throughput (ops/clk/SM, one op = one fp16 FMA: each thread's HFMA2 counts 2): one block of 1024 threads on every SM,
// 8 independent chains per thread (16 steps of each per loop trip); each block's
// operations over its SM's cycles, median over the SMs (kernels/chain.cuh).
#include "ops.cuh"

int main() {
  const wf_throughput_result r =
      wf_measure_throughput<hfma2_op, 8, 16>({__floats2half2_rn(0.5f, 0.5f), __floats2half2_rn(0.25f, 0.25f)}, 4096);
  wf_print_result(r.per_clock_per_sm, r.sm_clock_mhz);
}
