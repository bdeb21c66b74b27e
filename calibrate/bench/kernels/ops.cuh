#pragma once
// The single operations the instruction benchmarks time (kernels/chain.cuh says what an operation
// struct holds). Each is one SASS instruction per step; inline PTX is used where the compiler
// could otherwise fold or re-associate a chain, and every operand that could be a compile-time
// constant comes from `params` at run time.

#include "chain.cuh"

#include <cuda_fp16.h>

struct ffma_op { // FFMA; x converges to b / (1 - a): finite
  using value = float;
  struct params { float a, b; };
  static constexpr double ops_per_step = 1; // one FMA
  __device__ static value start(const params&, int chain) { return 1.0f + threadIdx.x + chain; }
  __device__ static value step(value x, const params& p) { return fmaf(x, p.a, p.b); }
};

struct dfma_op { // DFMA
  using value = double;
  struct params { double a, b; };
  static constexpr double ops_per_step = 1; // one FMA
  __device__ static value start(const params&, int chain) { return 1.0 + threadIdx.x + chain; }
  __device__ static value step(value x, const params& p) { return fma(x, p.a, p.b); }
};

// HFMA2: two fp16 FMAs per instruction (per thread). ptxas alternates a chain between HFMA2 and
// HFMA2.MMA (the same operation issued to the other FMA pipe), so a latency chain measures their
// mean; the throughput loop uses both pipes as compiled code does.
struct hfma2_op {
  using value = __half2;
  struct params { __half2 a, b; };
  static constexpr double ops_per_step = 2; // two fp16 FMAs
  __device__ static value start(const params&, int chain) {
    return __floats2half2_rn(0.5f + 0.01f * chain, 0.25f);
  }
  __device__ static value step(value x, const params& p) { return __hfma2(x, p.a, p.b); }
};

// IADD3 x = x + y, predicated on a runtime flag that is always set: ptxas merges a plain chain
// of adds (x + y + y -> one LEA/IMAD, or pairs into one IADD3); it cannot merge adds that may each
// be skipped, so every step stays one dependent `@P0 IADD3`.
struct iadd_op {
  using value = int;
  struct params { int y; int enabled; }; // enabled != 0
  static constexpr double ops_per_step = 1;
  __device__ static value start(const params&, int chain) { return threadIdx.x + chain; }
  __device__ static value step(value x, const params& p) {
    asm volatile("{\n .reg .pred q;\n setp.ne.s32 q, %2, 0;\n @q add.s32 %0, %0, %1;\n}"
                 : "+r"(x)
                 : "r"(p.y), "r"(p.enabled));
    return x;
  }
};

struct imad_op { // IMAD x = x * a + b
  using value = int;
  struct params { int a, b; };
  static constexpr double ops_per_step = 1;
  __device__ static value start(const params&, int chain) { return threadIdx.x + chain; }
  __device__ static value step(value x, const params& p) {
    asm volatile("mad.lo.s32 %0, %0, %1, %2;" : "+r"(x) : "r"(p.a), "r"(p.b));
    return x;
  }
};

struct rsqrt_op { // MUFU.RSQ: x -> 1/sqrt(x); positive x stays positive and finite
  using value = float;
  struct params { float unused; };
  static constexpr double ops_per_step = 1;
  __device__ static value start(const params&, int chain) { return 2.0f + threadIdx.x + chain; }
  __device__ static value step(value x, const params&) {
    asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(x));
    return x;
  }
};

// HMMA.16816.F32: mma.sync m16n8k16, fp16 inputs, fp32 accumulate; the chain is the accumulator.
struct mma_f16_accumulator {
  float d[4];
};

struct mma_f16_op {
  using value = mma_f16_accumulator;
  struct params { unsigned a[4]; unsigned b[2]; }; // the A and B fragments (fp16 pairs)
  // 2 x 16 x 8 x 16 FLOP per warp-wide mma, counted per thread: 4096 / 32.
  static constexpr double ops_per_step = 2.0 * 16 * 8 * 16 / 32;
  __device__ static value start(const params&, int chain) {
    return {{0.0f, 0.0f, static_cast<float>(chain), 0.0f}};
  }
  __device__ static value step(value x, const params& p) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(x.d[0]), "+f"(x.d[1]), "+f"(x.d[2]), "+f"(x.d[3])
        : "r"(p.a[0]), "r"(p.a[1]), "r"(p.a[2]), "r"(p.a[3]), "r"(p.b[0]), "r"(p.b[1]));
    return x;
  }
};

// fp16 pair 0.0625 / 0.0625: products stay small over millions of accumulations.
constexpr unsigned wf_small_half2 = 0x2c002c00u;

struct shfl_op { // SHFL.BFLY: swap with the neighbour lane, every lane of the warp taking part
  using value = int;
  struct params { int unused; };
  static constexpr double ops_per_step = 1;
  __device__ static value start(const params&, int chain) { return threadIdx.x + chain; }
  __device__ static value step(value x, const params&) {
    asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, -1;" : "+r"(x));
    return x;
  }
};
