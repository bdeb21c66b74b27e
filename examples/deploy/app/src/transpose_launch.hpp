#pragma once
// The host side of the application's kernel. Only transpose_launch.cu includes the kernel header,
// so the kernel is defined once however many files launch it.

#include <cuda_runtime.h>

/// Loads the kernel's module now (CUDA loads lazily), so the first timed launch does not pay for it.
void prepare_transpose();

/// Enqueues out = transpose(in) on `stream`; in is rows x cols, out cols x rows (row-major).
void launch_transpose(const float* in, float* out, int rows, int cols, cudaStream_t stream);
