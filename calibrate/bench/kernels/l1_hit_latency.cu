// l1_hit_latency (cycles): a warmed 16 KiB ring chased with a plain ld.global, so every step hits
// in L1 (kernels/chase.cuh). The value: 32768 steps in one clock64 window, 32 unrolled per loop
// trip, cycles / steps (the loop and clock reads amortised away: overhead removed). Beside it,
// RESULT raw_chase_cycles: the median of 512 steps each timed by its own clock64 pair with a
// shared-memory store in between, as the published p-chase tables time it.
#include "chase.cuh"

int main() {
  wf_device();
  const wf_chase_result bulk = wf_chase_working_set<true>(16 * 1024, 32768);
  const wf_chase_result clocked =
      wf_chase_working_set<true>(16 * 1024, 0, wf_chase_mode::clocked);
  wf_print_latency(bulk, clocked);
}
