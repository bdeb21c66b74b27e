// sm_count (SMs): a grid of 64 blocks per SM that cudaDeviceProp reports, each block spinning for
// 20 us and recording the %smid it ran on; the value is the number of distinct %smid seen (an SM
// that takes no block is not counted). cudaDeviceProp::multiProcessorCount is printed beside it.
#include "common.cuh"

#include <set>

constexpr unsigned long long spin_ns = 20000;

__global__ void record_sm(unsigned* sm_of_block, wf_window* windows) {
  const wf_window_start start = wf_open_window();
  while (wf_globaltimer_ns() - start.ns < spin_ns) {
  }
  if (threadIdx.x == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    sm_of_block[blockIdx.x] = sm;
    windows[blockIdx.x] = wf_close_window(start);
  }
}

int main() {
  const cudaDeviceProp prop = wf_device();
  const int blocks = 64 * prop.multiProcessorCount;
  wf_buffer<unsigned> sm_of_block(blocks);
  wf_buffer<wf_window> windows(blocks);
  for (int run = 0; run < 2; ++run) { // the first run warms up
    record_sm<<<blocks, 128>>>(sm_of_block.data, windows.data);
    wf_sync_kernel("the SM recorders");
  }
  std::set<unsigned> seen;
  for (const unsigned sm : sm_of_block.to_host())
    seen.insert(sm);
  std::printf("# cudaDeviceProp::multiProcessorCount: %d\n", prop.multiProcessorCount);
  wf_print_result(static_cast<double>(seen.size()), wf_clock_mhz(windows.to_host()));
}
