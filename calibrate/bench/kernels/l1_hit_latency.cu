// l1_hit_latency (cycles): a warmed 16 KiB ring chased with ld.global.ca, so every step hits in
// L1 (kernels/chase.cuh); 32768 steps. Includes the address's path through the LSU, as a
// dependent load sees it.
#include "chase.cuh"

int main() {
  wf_device();
  const wf_chase_result r = wf_chase_working_set<true>(16 * 1024, 32768);
  wf_print_result(r.cycles_per_step, wf_clock_mhz({r.window}));
}
