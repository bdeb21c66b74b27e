// branch_divergence_penalty (cycles): the extra cost of one two-way divergent if/else over running
// both of its bodies without divergence. One warp, one loop trip = body A (32 dependent FFMAs)
// and body B (32 dependent IMADs), either as `if (lane odd) A else B` (the warp splits, runs A
// and B one after the other, reconverges) or as `if (set) A; if (set) B;` with warp-uniform flags
// (no split). The bodies are inline PTX, so neither the compiler nor ptxas folds or predicates
// them away. Value = cycles per trip divergent - cycles per trip uniform.
#include "common.cuh"

constexpr int trips = 8192;

__device__ __forceinline__ float body_a(float x, float a, float b) {
#pragma unroll
  for (int i = 0; i < 32; ++i)
    asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));
  return x;
}

__device__ __forceinline__ unsigned body_b(unsigned y, unsigned k) {
#pragma unroll
  for (int i = 0; i < 32; ++i)
    asm volatile("mad.lo.u32 %0, %0, %1, 1;" : "+r"(y) : "r"(k));
  return y;
}

struct branch_params {
  float a, b;       // body A's constants
  unsigned k;       // body B's constant
  int set_a, set_b; // both non-zero: the uniform flags
};

template <bool Divergent>
__global__ void branches(branch_params p, float* sink_a, unsigned* sink_b, wf_window* window) {
  const unsigned lane = threadIdx.x % 32;
  float x = 1.0f + lane;
  unsigned y = lane;
  const wf_window_start start = wf_open_window();
#pragma unroll 1
  for (int t = 0; t < trips; ++t) {
    if (Divergent) {
      if (lane & 1)
        x = body_a(x, p.a, p.b);
      else
        y = body_b(y, p.k);
    } else {
      if (p.set_a)
        x = body_a(x, p.a, p.b);
      if (p.set_b)
        y = body_b(y, p.k);
    }
  }
  const wf_window closed = wf_close_window(start);
  sink_a[threadIdx.x] = x;
  sink_b[threadIdx.x] = y;
  if (threadIdx.x == 0)
    *window = closed;
}

template <bool Divergent>
static wf_window run(const branch_params& p) {
  wf_buffer<float> sink_a(32);
  wf_buffer<unsigned> sink_b(32);
  wf_buffer<wf_window> window(1);
  for (int run = 0; run < 2; ++run) { // the first run warms up
    branches<Divergent><<<1, 32>>>(p, sink_a.data, sink_b.data, window.data);
    wf_sync_kernel("the branch loop");
  }
  return window.to_host()[0];
}

int main() {
  wf_device();
  const branch_params p{0.5f, 0.25f, 0x9e3779b9u, 1, 1};
  const wf_window divergent = run<true>(p);
  const wf_window uniform = run<false>(p);
  const double penalty = static_cast<double>(divergent.cycles - uniform.cycles) / trips;
  wf_print_result(penalty, wf_clock_mhz({divergent, uniform}));
}
