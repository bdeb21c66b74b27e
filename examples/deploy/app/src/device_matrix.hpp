#pragma once
// The two device buffers of one size (input and output, rows * cols floats each), allocated once
// and freed when the size is done; the input filled with fresh values from the size's seed.

#include <cstddef>
#include <cstdint>

class device_matrix_pair {
public:
  device_matrix_pair(int rows, int cols, std::uint32_t seed);
  ~device_matrix_pair();
  device_matrix_pair(const device_matrix_pair&) = delete;
  device_matrix_pair& operator=(const device_matrix_pair&) = delete;

  const float* in() const { return in_; }
  float* out() const { return out_; }
  std::size_t count() const { return count_; } // elements per buffer

private:
  std::size_t count_ = 0;
  float* in_ = nullptr;
  float* out_ = nullptr;
};
