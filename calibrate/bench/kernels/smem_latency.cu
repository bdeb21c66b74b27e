// smem_latency (cycles): one warp chasing a self-loop in shared memory (every lane the same word:
// a broadcast, no conflict), one ld.shared.u32 per step whose address is the last load's value
// (kernels/smem.cuh). The value: loop overhead cancelled by chain.cuh's 64/128-step difference
// (overhead removed). RESULT raw_chase_cycles: one thread, 512 steps each timed by its own
// clock64 pair with the loaded value stored to shared memory in between, the median step (the
// published p-chase tables' method, Jia et al. arXiv:1804.06826).
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

int main() {
  wf_device();
  const wf_latency_result r = wf_measure_latency<smem_probe_op>({0}, 8192);
  wf_buffer<long long> step_cycles(clocked_steps);
  wf_buffer<unsigned> sink(1);
  for (int run = 0; run < 2; ++run) { // the first run warms the instruction cache
    smem_clocked_chase<<<1, 1>>>(step_cycles.data, sink.data);
    wf_sync_kernel("the clocked shared-memory chase");
  }
  std::vector<double> cycles;
  for (const long long c : step_cycles.to_host())
    cycles.push_back(static_cast<double>(c));
  wf_print_result(r.cycles_per_step, r.sm_clock_mhz);
  std::printf("RESULT: raw_chase_cycles=%.6g\n", wf_median(cycles));
}
