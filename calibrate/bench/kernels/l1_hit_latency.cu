// l1_hit_latency (cycles): a warmed 16 KiB ring chased with a plain ld.global, so every step hits
// in L1 (kernels/chase.cuh). The value: 32768 steps in one clock64 window, 32 unrolled per loop
// trip, cycles / steps (the loop and clock reads amortised away: overhead removed). Beside it,
// RESULT raw_chase_cycles: the median of 512 steps each timed by its own clock64 pair with a
// shared-memory store in between (a pointer chase: no address arithmetic). RESULT
// index_chase_cycles: 32768 hops j = A[j] over 32-bit indices in one clock64 window, the loop
// not unrolled (index-to-address arithmetic, load, counter, compare, branch per hop), as
// published latency tables' loops are written.
#include "chase.cuh"

int main() {
  wf_device();
  const wf_chase_result bulk = wf_chase_working_set<true>(16 * 1024, 32768);
  const wf_chase_result clocked =
      wf_chase_working_set<true>(16 * 1024, 0, wf_chase_mode::clocked);
  const std::size_t nodes = 16 * 1024 / wf_node_bytes;
  const double index = wf_index_chase<true>(nodes, wf_shuffled_order(nodes), 32768, true);
  wf_print_latency(bulk, clocked, index);
}
