// smem_latency (cycles): one warp chasing a self-loop in shared memory (every lane the same word:
// a broadcast, no conflict), one ld.shared.u32 per step whose address is the last load's value
// (kernels/smem.cuh). The value: loop overhead cancelled by chain.cuh's 64/128-step difference
// (overhead removed). RESULT raw_chase_cycles: one thread, 512 steps each timed by its own
// clock64 pair with the loaded value stored to shared memory in between, the median step (a
// pointer chase: the loaded word is the next address). RESULT index_chase_cycles: 8192 hops
// j = A[j] over a ring of 32-bit indices in shared memory in one clock64 window, the loop not
// unrolled (the index scaled to an address, the load, the loop's counter, compare and branch
// per hop), as published latency tables' loops are written.
#include "smem.cuh"

constexpr int clocked_steps = 512;

__global__ void smem_clocked_chase(long long* step_cycles, unsigned* sink) {
  __shared__ unsigned word;
  __shared__ unsigned seen_at[clocked_steps];
  __shared__ long long cycles_at[clocked_steps];
  word = wf_shared_address(&word); // a self-loop: the word holds its own address
  __syncthreads();
  unsigned address = wf_shared_address(&word);
  for (int k = 0; k < clocked_steps; ++k) {
    const long long before = clock64();
    asm volatile("ld.shared.u32 %0, [%0];" : "+r"(address));
    seen_at[k] = address;
    const long long after = clock64();
    cycles_at[k] = after - before;
  }
  unsigned seen = 0;
  for (int k = 0; k < clocked_steps; ++k) {
    step_cycles[k] = cycles_at[k];
    seen ^= seen_at[k];
  }
  *sink = seen;
}

constexpr unsigned index_ring = 256; // words: a ring j -> (j + 33) mod 256 (odd step: one cycle)

constexpr int index_hops = 8192;

__global__ void smem_index_chase(long long* cycles, unsigned* sink) {
  __shared__ unsigned s_array[index_ring];
  for (unsigned i = threadIdx.x; i < index_ring; i += blockDim.x)
    s_array[i] = (i + 33) % index_ring;
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  unsigned j = 0;
  const long long before = clock64();
#pragma unroll 1
  for (int k = 0; k < index_hops; ++k)
    j = s_array[j];
  const long long after = clock64();
  *cycles = after - before;
  *sink = j;
}

static double median_of(const wf_buffer<long long>& step_cycles) {
  std::vector<double> cycles;
  for (const long long c : step_cycles.to_host())
    cycles.push_back(static_cast<double>(c));
  return wf_median(cycles);
}

int main() {
  wf_device();
  const wf_latency_result r = wf_measure_latency<smem_probe_op>({0}, 8192);
  wf_buffer<long long> step_cycles(clocked_steps);
  wf_buffer<unsigned> sink(1);
  for (int run = 0; run < 2; ++run) { // the first run warms the instruction cache
    smem_clocked_chase<<<1, 1>>>(step_cycles.data, sink.data);
    wf_sync_kernel("the clocked shared-memory chase");
  }
  const double raw = median_of(step_cycles);
  wf_buffer<long long> index_cycles(1);
  for (int run = 0; run < 2; ++run) {
    smem_index_chase<<<1, 32>>>(index_cycles.data, sink.data);
    wf_sync_kernel("the shared-memory index chase");
  }
  const long long hops_cycles = index_cycles.to_host()[0];
  if (hops_cycles <= 0)
    wf_fail("the shared-memory index chase measured no cycles");
  wf_print_result(r.cycles_per_step, r.sm_clock_mhz);
  std::printf("RESULT: raw_chase_cycles=%.6g\nRESULT: index_chase_cycles=%.6g\n", raw,
              static_cast<double>(hops_cycles) / index_hops);
}
