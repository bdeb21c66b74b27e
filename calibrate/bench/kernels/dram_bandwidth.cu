// dram_bandwidth (GB/s, 1e9 bytes/s, reads only): 1 GiB (or a quarter of device memory, if
// smaller), far more than the L2, streamed four times in one timed launch (kernels/stream.cuh), so
// every byte comes from DRAM.
#include "stream.cuh"

int main() {
  const cudaDeviceProp prop = wf_device();
  const std::size_t bytes = std::min<std::size_t>(1ull << 30, prop.totalGlobalMem / 4);
  const wf_stream_result r = wf_stream_read(bytes, 4);
  wf_print_result(r.gb_per_s, r.sm_clock_mhz);
}
