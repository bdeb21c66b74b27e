#pragma once
// One checking macro for every CUDA runtime call: a failure prints the call text, the error and
// file:line, then ends the program with exit code 2 (1 is reserved for "wrong result").

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                     \
  do {                                                                                       \
    const cudaError_t cuda_check_status = (call);                                            \
    if (cuda_check_status != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,         \
                   cudaGetErrorString(cuda_check_status), cudaGetErrorName(cuda_check_status)); \
      std::exit(2);                                                                          \
    }                                                                                        \
  } while (false)
