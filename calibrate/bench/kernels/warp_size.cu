// warp_size (threads): one block of 1024 threads; each thread records %laneid, and lane 0 of each
// warp the population count of __activemask(). The value is the lane count (largest %laneid + 1),
// which must equal every warp's active mask count; cudaDeviceProp::warpSize is printed beside it.
#include "common.cuh"

__global__ void record_lanes(unsigned* lane_of_thread, unsigned* active_of_warp, wf_window* window) {
  const wf_window_start start = wf_open_window();
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  lane_of_thread[threadIdx.x] = lane;
  const unsigned active = __popc(__activemask());
  if (lane == 0)
    active_of_warp[threadIdx.x / 32] = active; // the index is only a slot: lanes decide the count
  while (wf_globaltimer_ns() - start.ns < 1000000) { // about 1 ms, for a clock estimate
  }
  if (threadIdx.x == 0)
    *window = wf_close_window(start);
}

int main() {
  const cudaDeviceProp prop = wf_device();
  const int threads = 1024;
  wf_buffer<unsigned> lanes(threads), active(threads);
  wf_buffer<wf_window> window(1);
  record_lanes<<<1, threads>>>(lanes.data, active.data, window.data);
  wf_sync_kernel("the lane recorders");
  unsigned most = 0;
  for (const unsigned lane : lanes.to_host())
    most = std::max(most, lane);
  const unsigned lane_count = most + 1;
  const std::vector<unsigned> masks = active.to_host();
  for (unsigned w = 0; w < threads / lane_count; ++w)
    if (masks[w] != lane_count)
      wf_fail("a warp's active mask disagrees with its lane count");
  std::printf("# cudaDeviceProp::warpSize: %d\n", prop.warpSize);
  wf_print_result(lane_count, wf_clock_mhz(window.to_host()));
}
