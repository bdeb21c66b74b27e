#include "gpu/check/element_access.hpp"

#include "gpu/check/float16.hpp"

#include <bit>
#include <cmath>
#include <cstring>

namespace warpforge::gpu {

using config::dtype;

static_assert(std::endian::native == std::endian::little,
              "buffers are exchanged with the GPU in little-endian byte order");

std::uint64_t load_bits(std::span<const std::byte> buffer, dtype type, std::size_t index) {
  const std::size_t size = config::size_of(type);
  std::uint64_t bits = 0;
  std::memcpy(&bits, buffer.data() + index * size, size);
  return bits;
}

void store_bits(std::span<std::byte> buffer, dtype type, std::size_t index, std::uint64_t bits) {
  const std::size_t size = config::size_of(type);
  std::memcpy(buffer.data() + index * size, &bits, size);
}

double to_double(dtype type, std::uint64_t bits) {
  switch (type) {
  case dtype::f16: return f16_to_double(static_cast<std::uint16_t>(bits));
  case dtype::bf16: return bf16_to_double(static_cast<std::uint16_t>(bits));
  case dtype::f32: return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  case dtype::f64: return std::bit_cast<double>(bits);
  case dtype::i8: return static_cast<std::int8_t>(bits);
  case dtype::i16: return static_cast<std::int16_t>(bits);
  case dtype::i32: return static_cast<std::int32_t>(bits);
  case dtype::i64: return static_cast<double>(static_cast<std::int64_t>(bits));
  case dtype::u8: return static_cast<std::uint8_t>(bits);
  case dtype::u16: return static_cast<std::uint16_t>(bits);
  case dtype::u32: return static_cast<std::uint32_t>(bits);
  case dtype::u64: return static_cast<double>(bits);
  }
  return 0.0;
}

bool is_nan_bits(dtype type, std::uint64_t bits) {
  return config::is_floating_point(type) && std::isnan(to_double(type, bits));
}

} // namespace warpforge::gpu
