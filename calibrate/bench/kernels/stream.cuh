#pragma once
// Streaming reads: every thread of a full grid reads 16-byte vectors (ld.global.cg.v4, which
// skips L1) in a grid-stride loop, four independent loads in flight per thread, over a buffer
// `passes` times in one launch. Bandwidth = bytes read / the launch's cudaEvent time. Block 0
// also opens a clock window over its own work for the SM clock.

#include "common.cuh"

__device__ __forceinline__ uint4 wf_load_streaming(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

__global__ void wf_stream_kernel(const uint4* data, std::size_t vectors, int passes,
                                 unsigned* sink, wf_window* window) {
  const wf_window_start start = wf_open_window();
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  unsigned seen = 0;
  for (int pass = 0; pass < passes; ++pass) {
    std::size_t i = first;
    for (; i + 3 * threads < vectors; i += 4 * threads) { // four loads in flight
      const uint4 a = wf_load_streaming(data + i);
      const uint4 b = wf_load_streaming(data + i + threads);
      const uint4 c = wf_load_streaming(data + i + 2 * threads);
      const uint4 d = wf_load_streaming(data + i + 3 * threads);
      seen ^= (a.x ^ a.y ^ a.z ^ a.w) ^ (b.x ^ b.y ^ b.z ^ b.w) ^ (c.x ^ c.y ^ c.z ^ c.w) ^
              (d.x ^ d.y ^ d.z ^ d.w); // every word used, so each load stays 16 bytes wide
    }
    for (; i < vectors; i += threads) {
      const uint4 a = wf_load_streaming(data + i);
      seen ^= a.x ^ a.y ^ a.z ^ a.w;
    }
  }
  const wf_window closed = wf_close_window(start);
  sink[first] = seen;
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *window = closed;
}

struct wf_stream_result {
  double gb_per_s = 0;     // 1e9 bytes per second
  double sm_clock_mhz = 0; // MHz, block 0's window
};

// Reads `bytes` of zeroed device memory `passes` times per launch: one warm-up launch, then one
// timed. Grid: 4 blocks of 512 threads per SM.
static wf_stream_result wf_stream_read(std::size_t bytes, int passes) {
  const cudaDeviceProp prop = wf_device();
  const std::size_t vectors = bytes / sizeof(uint4);
  wf_buffer<uint4> data(vectors);
  const int threads = 512, blocks = 4 * prop.multiProcessorCount;
  wf_buffer<unsigned> sink(static_cast<std::size_t>(threads) * blocks);
  wf_buffer<wf_window> window(1);
  cudaEvent_t begin, end;
  WF_CHECK(cudaEventCreate(&begin));
  WF_CHECK(cudaEventCreate(&end));
  wf_stream_kernel<<<blocks, threads>>>(data.data, vectors, passes, sink.data, window.data);
  wf_sync_kernel("the warm-up stream");
  WF_CHECK(cudaEventRecord(begin));
  wf_stream_kernel<<<blocks, threads>>>(data.data, vectors, passes, sink.data, window.data);
  WF_CHECK(cudaEventRecord(end));
  wf_sync_kernel("the timed stream");
  float ms = 0;
  WF_CHECK(cudaEventElapsedTime(&ms, begin, end));
  WF_CHECK(cudaEventDestroy(begin));
  WF_CHECK(cudaEventDestroy(end));
  if (ms <= 0)
    wf_fail("the stream took no measurable time");
  const double read = static_cast<double>(vectors) * sizeof(uint4) * passes;
  return {read / (ms * 1e-3) / 1e9, wf_clock_mhz(window.to_host())};
}
