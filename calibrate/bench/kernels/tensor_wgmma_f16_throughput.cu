// tensor_wgmma_f16_throughput (FLOP/clk/SM, 2 x 64 x 256 x 16 FLOP per wgmma m64n256k16): one
// block of two warpgroups per SM, each issuing wgmma.mma_async m64n256k16 (fp16 in, fp32
// accumulate, A and B from shared memory) back to back into its own accumulators, four per
// commit group with one group left in flight (as a GEMM main loop does). FLOP over the SM's
// cycles, median over the SMs. Needs sm_90a: a bare sm_90 build cannot lower wgmma and this
// program then refuses to run (the engine warns at build time, as the seed does).
#include "common.cuh"

constexpr int warpgroups = 2;
constexpr int threads = 128 * warpgroups;
constexpr int per_group = 4;  // wgmma per commit group
constexpr int trips = 4096;   // commit groups per warpgroup
constexpr double flop_per_wgmma = 2.0 * 64 * 256 * 16;
constexpr unsigned a_bytes = 64 * 16 * 2, b_bytes = 256 * 16 * 2; // fp16 tiles
static_assert((a_bytes + b_bytes) % 128 == 0, "the tiles keep 128-byte alignment");

// A shared-memory matrix descriptor, no swizzle: start address, leading and stride byte offsets
// (all >> 4). Core matrices are 8 rows x 16 bytes, packed 128 bytes apart along K and 256 apart
// along M/N, so a 64 x 16 A tile spans 2 KiB and a 256 x 16 B tile 8 KiB (the values are zeros:
// throughput does not depend on them).
__device__ __forceinline__ unsigned long long smem_descriptor(const void* tile) {
  const unsigned long long address = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const unsigned long long leading = 128, stride = 256;
  return ((address >> 4) & 0x3fff) | ((leading >> 4) & 0x3fff) << 16 |
         ((stride >> 4) & 0x3fff) << 32;
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
__device__ __forceinline__ void wgmma_64x256x16(float (&d)[128], unsigned long long a,
                                                unsigned long long b) {
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
      "%128, %129, accumulate, 1, 1, 0, 0;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(a), "l"(b), "n"(1)); // scale-d = 1: D = A x B + D
}
#endif

__global__ void __launch_bounds__(threads, 1)
    wgmma_stream(float* sink, wf_window* windows, int* lowered) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ __align__(128) unsigned char tiles[a_bytes + b_bytes];
  for (unsigned i = threadIdx.x; i < a_bytes + b_bytes; i += blockDim.x)
    tiles[i] = 0;
  asm volatile("fence.proxy.async.shared::cta;"); // the zeros are visible to the tensor cores
  __syncthreads();
  const unsigned long long a = smem_descriptor(tiles), b = smem_descriptor(tiles + a_bytes);
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i)
    d[i] = 0.0f;
  const wf_window_start start = wf_open_window();
  for (int t = 0; t < trips; ++t) {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int k = 0; k < per_group; ++k)
      wgmma_64x256x16(d, a, b);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  __syncthreads();
  const wf_window closed = wf_close_window(start);
  float sum = 0;
#pragma unroll
  for (int i = 0; i < 128; ++i)
    sum += d[i];
  sink[blockIdx.x * threads + threadIdx.x] = sum;
  if (threadIdx.x == 0) {
    windows[blockIdx.x] = closed;
    *lowered = 1;
  }
#endif
}

int main() {
  const cudaDeviceProp prop = wf_device();
  const std::size_t smem = wf_one_block_per_sm(wgmma_stream, prop);
  const int blocks = prop.multiProcessorCount;
  wf_buffer<float> sink(static_cast<std::size_t>(blocks) * threads);
  wf_buffer<wf_window> windows(blocks);
  wf_buffer<int> lowered(1);
  for (int run = 0; run < 2; ++run) { // the first run warms up
    wgmma_stream<<<blocks, threads, smem>>>(sink.data, windows.data, lowered.data);
    wf_sync_kernel("the wgmma stream");
  }
  if (lowered.to_host()[0] != 1)
    wf_fail("built without sm_90a: no wgmma was compiled in (build with -arch=sm_90a)");
  const std::vector<wf_window> measured = windows.to_host();
  const double flop_per_block = flop_per_wgmma * warpgroups * per_group * trips;
  std::vector<double> rates;
  for (const auto& window : measured) {
    if (window.cycles <= 0)
      wf_fail("a block measured no cycles");
    rates.push_back(flop_per_block / static_cast<double>(window.cycles));
  }
  wf_print_result(wf_median(rates), wf_clock_mhz(measured));
}
