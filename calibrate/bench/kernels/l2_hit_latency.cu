// l2_hit_latency (cycles): a warmed 4 MiB ring (far below any Hopper L2 partition) chased with
// ld.global.cg, which skips L1, so every step hits in L2 (kernels/chase.cuh). The value: 8192
// steps in one clock64 window, cycles / steps (overhead removed); RESULT raw_chase_cycles: the
// median of 512 steps each timed by its own clock64 pair (a pointer chase); RESULT
// index_chase_cycles: 8192 hops j = A[j] over 32-bit indices in one clock64 window, the loop not
// unrolled (loop and address arithmetic included: the published tables' method). The
// ring is spread over both L2 partitions' address slices; one SM's chase of it is served by the
// SM's near partition once warm (l2_partition_size).
#include "chase.cuh"

int main() {
  wf_device();
  const wf_chase_result bulk = wf_chase_working_set<false>(4u << 20, 8192);
  const wf_chase_result clocked = wf_chase_working_set<false>(4u << 20, 0, wf_chase_mode::clocked);
  const std::size_t nodes = (4u << 20) / wf_node_bytes;
  const double index = wf_index_chase<false>(nodes, wf_shuffled_order(nodes), 8192, true);
  wf_print_latency(bulk, clocked, index);
}
