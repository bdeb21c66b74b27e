#pragma once
// Reading and writing one element of a raw buffer of any dtype, in the host's byte order (little
// endian, as on every CUDA GPU). Indices are elements, not bytes; the caller checks bounds.

#include "config/dtype.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace warpforge::gpu {

/// The element's bit pattern, zero-extended to 64 bits.
std::uint64_t load_bits(std::span<const std::byte> buffer, config::dtype type, std::size_t index);

/// Stores the low size_of(type) bytes of `bits` as element `index`.
void store_bits(std::span<std::byte> buffer, config::dtype type, std::size_t index,
                std::uint64_t bits);

/// The element's value as a double: exact for floats and for integers up to 2^53 in magnitude,
/// rounded to nearest beyond.
double to_double(config::dtype type, std::uint64_t bits);

/// Whether a value of `type` with these bits is a NaN (false for integers).
bool is_nan_bits(config::dtype type, std::uint64_t bits);

} // namespace warpforge::gpu
