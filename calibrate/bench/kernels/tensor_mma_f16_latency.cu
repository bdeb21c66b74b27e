// tensor_mma_f16_latency (cycles): one warp runs a dependent chain of mma.sync m16n8k16 f16 -> f32 into the same accumulator (HMMA.16816.F32);
// the cycles per step, with the loop overhead cancelled by running 64 and 128 steps per loop trip
// (kernels/chain.cuh). 2048 loop trips keep each run over a millisecond for the clock estimate.
#include "ops.cuh"

static mma_f16_op::params mma_params() {
  mma_f16_op::params p{};
  for (auto& a : p.a) a = wf_small_half2;
  for (auto& b : p.b) b = wf_small_half2;
  return p;
}

int main() {
  wf_device();
  const wf_latency_result r = wf_measure_latency<mma_f16_op>(mma_params(), 2048);
  wf_print_result(r.cycles_per_step, r.sm_clock_mhz);
}
