#pragma once
// IEEE binary16 (f16) and bfloat16 (bf16) bit patterns <-> double, on the host, without CUDA
// (the codecs of counter_generator.hpp, which the device shares).
//
// Decoding is exact (every f16/bf16 value is a double). Encoding rounds to nearest, ties to even,
// directly from the double (no double rounding through float): overflow gives +-inf, tiny values
// give subnormals or +-0, NaN gives the quiet NaN of the format with the input's sign.

#include <cstdint>

namespace warpforge::gpu {

inline constexpr std::uint16_t f16_quiet_nan = 0x7E00;  // canonical quiet NaN
inline constexpr std::uint16_t bf16_quiet_nan = 0x7FC0; // canonical quiet NaN

double f16_to_double(std::uint16_t bits);
std::uint16_t double_to_f16(double value);

double bf16_to_double(std::uint16_t bits);
std::uint16_t double_to_bf16(double value);

} // namespace warpforge::gpu
