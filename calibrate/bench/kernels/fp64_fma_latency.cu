// fp64_fma_latency (cycles): one warp runs a dependent chain of fma(x, a, b) in double (DFMA);
// the cycles per step, with the loop overhead cancelled by running 64 and 128 steps per loop trip
// (kernels/chain.cuh). 8192 loop trips keep each run over a millisecond for the clock estimate.
#include "ops.cuh"

int main() {
  wf_device();
  const wf_latency_result r = wf_measure_latency<dfma_op>({0.5, 0.25}, 8192);
  wf_print_result(r.cycles_per_step, r.sm_clock_mhz);
}
