// out[r][c] = exp(in[r][c] - max_r) / sum_c exp(in[r][c] - max_r), per row of a rows x cols f32
// matrix (row-major). One block per row: each thread walks a strided slice of the row three times
// (max, sum of exponentials, the normalised values), the block combining partial results between.
//
// Tunables (passed as -D by warpforge):
//   BLOCK         threads per block (the launch's block.x); a multiple of 32, at most 1024.
//   WARP_SHUFFLE  0: tree reductions in shared memory, a __syncthreads() per level.
//                 1: reductions within each warp with __shfl_xor_sync, then across the warps
//                    (method "warp_shuffle").
// NVRTC-compilable: no host headers.

#ifndef BLOCK
#define BLOCK 128
#endif
#ifndef WARP_SHUFFLE
#define WARP_SHUFFLE 0
#endif

#define WARP_SIZE 32

struct max_op {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct sum_op {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// The block's reduction of `value` under `op`, returned to every thread.
template <class Op>
__device__ float block_reduce(float value, Op op, float* scratch) {
  const int tid = static_cast<int>(threadIdx.x);
#if WARP_SHUFFLE
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  if (tid % WARP_SIZE == 0)
    scratch[tid / WARP_SIZE] = value;
  __syncthreads();
  value = scratch[0];
  for (int w = 1; w < BLOCK / WARP_SIZE; ++w)
    value = op(value, scratch[w]);
  __syncthreads(); // scratch is reused by the next reduction
  return value;
#else
  scratch[tid] = value;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (tid < stride)
      scratch[tid] = op(scratch[tid], scratch[tid + stride]);
    __syncthreads();
  }
  value = scratch[0];
  __syncthreads();
  return value;
#endif
}

extern "C" __global__ void __launch_bounds__(BLOCK)
softmax(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int row = static_cast<int>(blockIdx.x);
  if (row >= rows)
    return; // uniform across the block
  __shared__ float scratch[BLOCK];
  const float* row_in = in + static_cast<size_t>(row) * cols;
  float* row_out = out + static_cast<size_t>(row) * cols;
  const int tid = static_cast<int>(threadIdx.x);

  float largest = -3.402823466e+38f;
  for (int c = tid; c < cols; c += BLOCK)
    largest = fmaxf(largest, row_in[c]);
  largest = block_reduce(largest, max_op{}, scratch);

  float sum = 0.0f;
  for (int c = tid; c < cols; c += BLOCK)
    sum += expf(row_in[c] - largest);
  sum = block_reduce(sum, sum_op{}, scratch);

  const float scale = 1.0f / sum;
  for (int c = tid; c < cols; c += BLOCK)
    row_out[c] = expf(row_in[c] - largest) * scale;
}
