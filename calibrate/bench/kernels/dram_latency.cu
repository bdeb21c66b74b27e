// dram_latency (cycles): 8192 steps of a ring of 8192 nodes scattered over 512 MiB (far more
// than the L2), chased with ld.global.cg after the L2 has been flushed (writing 4 x its size
// elsewhere), so every step misses L1 and L2 (kernels/chase.cuh). Includes the TLB lookups a
// random access sees.
#include "chase.cuh"

int main() {
  const cudaDeviceProp prop = wf_device();
  const std::size_t span_nodes = (512u << 20) / wf_node_bytes; // a power of two
  wf_buffer<unsigned long long> nodes(span_nodes * wf_node_slots);
  const std::size_t flush_bytes = 4 * static_cast<std::size_t>(prop.l2CacheSize);
  const wf_chase_result r =
      wf_chase<false>(nodes, span_nodes, wf_scattered_order(8192, span_nodes), 8192, false,
                      flush_bytes);
  wf_print_result(r.cycles_per_step, wf_clock_mhz({r.window}));
}
