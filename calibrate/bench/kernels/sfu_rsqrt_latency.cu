// sfu_rsqrt_latency (cycles): one warp runs a dependent chain of rsqrt.approx.ftz.f32 (MUFU.RSQ);
// the cycles per step, with the loop overhead cancelled by running 64 and 128 steps per loop trip
// (kernels/chain.cuh). 4096 loop trips keep each run over a millisecond for the clock estimate.
#include "ops.cuh"

int main() {
  wf_device();
  const wf_latency_result r = wf_measure_latency<rsqrt_op>({0.0f}, 4096);
  wf_print_result(r.cycles_per_step, r.sm_clock_mhz);
}
