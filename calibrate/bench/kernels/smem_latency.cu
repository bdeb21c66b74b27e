// smem_latency (cycles): one warp chasing a self-loop in shared memory (every lane the same word:
// a broadcast, no conflict), one ld.shared.u32 per step whose address is the last load's value
// (kernels/smem.cuh); loop overhead cancelled by chain.cuh's 64/128-step difference.
#include "smem.cuh"

int main() {
  wf_device();
  const wf_latency_result r = wf_measure_latency<smem_probe_op>({0}, 8192);
  wf_print_result(r.cycles_per_step, r.sm_clock_mhz);
}
