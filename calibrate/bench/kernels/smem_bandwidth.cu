// smem_bandwidth (bytes/clk/SM): one block of 1024 threads per SM, each thread reading 16-byte
// vectors (ld.volatile.shared.v4: every load is performed) at conflict-free addresses (a warp
// reads 512 contiguous bytes), 8 loads per loop trip over 4 regions of 16 KiB; bytes read over
// the SM's cycles, median over SMs.
#include "common.cuh"

constexpr int threads = 1024;
constexpr int loads_per_trip = 8;
constexpr int iterations = 4096;
constexpr unsigned region_bytes = threads * 16; // one vector per thread; 16 KiB
constexpr unsigned regions = 4;                 // 64 KiB read, inside the block's shared memory

__global__ void __launch_bounds__(threads)
    smem_stream(unsigned* sink, wf_window* windows, int trips) {
  extern __shared__ uint4 smem[];
  for (unsigned i = threadIdx.x; i < regions * region_bytes / 16; i += blockDim.x)
    smem[i] = make_uint4(i, i + 1, i + 2, i + 3);
  __syncthreads();
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem)) + threadIdx.x * 16;
  unsigned a = 0, b = 0, c = 0, d = 0;
  const wf_window_start start = wf_open_window();
  for (int t = 0; t < trips; ++t) {
#pragma unroll
    for (int k = 0; k < loads_per_trip; ++k) {
      unsigned x, y, z, w;
      asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                   : "r"(base + (k % regions) * region_bytes));
      a ^= x, b ^= y, c ^= z, d ^= w;
    }
  }
  __syncthreads();
  const wf_window closed = wf_close_window(start);
  sink[blockIdx.x * blockDim.x + threadIdx.x] = a ^ b ^ c ^ d;
  if (threadIdx.x == 0)
    windows[blockIdx.x] = closed;
}

int main() {
  const cudaDeviceProp prop = wf_device();
  const std::size_t smem = wf_one_block_per_sm(smem_stream, prop);
  if (smem < regions * region_bytes)
    wf_fail("less shared memory than the benchmark reads");
  const int blocks = prop.multiProcessorCount;
  wf_buffer<unsigned> sink(static_cast<std::size_t>(blocks) * threads);
  wf_buffer<wf_window> windows(blocks);
  for (int run = 0; run < 2; ++run) {
    smem_stream<<<blocks, threads, smem>>>(sink.data, windows.data, iterations);
    wf_sync_kernel("the shared-memory stream");
  }
  const std::vector<wf_window> measured = windows.to_host();
  const double bytes = 16.0 * threads * loads_per_trip * iterations;
  std::vector<double> rates;
  for (const auto& window : measured) {
    if (window.cycles <= 0)
      wf_fail("a block measured no cycles");
    rates.push_back(bytes / static_cast<double>(window.cycles));
  }
  wf_print_result(wf_median(rates), wf_clock_mhz(measured));
}
