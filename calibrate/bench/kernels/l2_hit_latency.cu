// l2_hit_latency (cycles): a warmed 4 MiB ring (far below any Hopper L2 partition) chased with
// ld.global.cg, which skips L1, so every step hits in L2 (kernels/chase.cuh); 8192 steps. The
// ring is spread over both L2 partitions, so this is their mean as an SM sees it.
#include "chase.cuh"

int main() {
  wf_device();
  const wf_chase_result r = wf_chase_working_set<false>(4u << 20, 8192);
  wf_print_result(r.cycles_per_step, wf_clock_mhz({r.window}));
}
