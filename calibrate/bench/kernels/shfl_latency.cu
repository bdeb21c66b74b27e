// shfl_latency (cycles): one warp runs a dependent chain of shfl.sync.bfly (SHFL.BFLY; every lane swaps with its neighbour);
// the cycles per step, with the loop overhead cancelled by running 64 and 128 steps per loop trip
// (kernels/chain.cuh). 4096 loop trips keep each run over a millisecond for the clock estimate.
#include "ops.cuh"

int main() {
  wf_device();
  const wf_latency_result r = wf_measure_latency<shfl_op>({0}, 4096);
  wf_print_result(r.cycles_per_step, r.sm_clock_mhz);
}
