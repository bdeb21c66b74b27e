// fp16_hfma2_latency (cycles): one warp runs a dependent chain of __hfma2(x, a, b) (HFMA2);
// the cycles per step, with the loop overhead cancelled by running 64 and 128 steps per loop trip
// (kernels/chain.cuh). 16384 loop trips keep each run over a millisecond for the clock estimate.
#include "ops.cuh"

int main() {
  wf_device();
  const wf_latency_result r = wf_measure_latency<hfma2_op>({__floats2half2_rn(0.5f, 0.5f), __floats2half2_rn(0.25f, 0.25f)}, 16384);
  wf_print_result(r.cycles_per_step, r.sm_clock_mhz);
}
