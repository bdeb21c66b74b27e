// dram_latency (cycles): a ring of 8192 nodes scattered over 512 MiB (far more than the L2),
// chased with ld.global.cg after the L2 has been flushed (writing 4 x its size elsewhere), so
// every step misses L1 and L2 (kernels/chase.cuh). Includes the TLB lookups a random access
// sees. The value: 8192 steps in one clock64 window, cycles / steps (overhead removed); RESULT
// raw_chase_cycles: after a second flush, the median of 512 steps each timed by its own clock64
// pair (a pointer chase); RESULT index_chase_cycles: after a third flush, 8192 hops j = A[j] over
// 32-bit indices in one clock64 window, the loop not unrolled (the published tables' method).
#include "chase.cuh"

int main() {
  const cudaDeviceProp prop = wf_device();
  const std::size_t span_nodes = (512u << 20) / wf_node_bytes; // a power of two
  wf_buffer<unsigned long long> nodes(span_nodes * wf_node_slots);
  const std::size_t flush_bytes = 4 * static_cast<std::size_t>(prop.l2CacheSize);
  const std::vector<unsigned> order = wf_scattered_order(8192, span_nodes);
  const wf_chase_result bulk = wf_chase<false>(nodes, span_nodes, order, 8192, false, flush_bytes);
  const wf_chase_result clocked = wf_chase<false>(nodes, span_nodes, order, 0, false, flush_bytes,
                                                  wf_chase_mode::clocked);
  const double index = wf_index_chase<false>(span_nodes, order, 8192, false, flush_bytes);
  wf_print_latency(bulk, clocked, index);
}
