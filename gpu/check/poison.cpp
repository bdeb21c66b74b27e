#include "gpu/check/poison.hpp"

#include "gpu/check/element_access.hpp"

namespace warpforge::gpu {

using config::dtype;

std::uint64_t poison_bits(dtype type) {
  switch (type) {
  case dtype::f16: return poison_f16;
  case dtype::bf16: return poison_bf16;
  case dtype::f32: return poison_f32;
  case dtype::f64: return poison_f64;
  case dtype::i8:
  case dtype::u8: return poison_8;
  case dtype::i16:
  case dtype::u16: return poison_16;
  case dtype::i32:
  case dtype::u32: return poison_32;
  case dtype::i64:
  case dtype::u64: return poison_64;
  }
  return 0;
}

void fill_poison(std::span<std::byte> buffer, dtype type) {
  const std::size_t elements = buffer.size() / config::size_of(type);
  const std::uint64_t bits = poison_bits(type);
  for (std::size_t i = 0; i < elements; ++i)
    store_bits(buffer, type, i, bits);
}

std::size_t count_poisoned(std::span<const std::byte> buffer, dtype type) {
  const std::size_t elements = buffer.size() / config::size_of(type);
  const std::uint64_t bits = poison_bits(type);
  std::size_t count = 0;
  for (std::size_t i = 0; i < elements; ++i)
    count += load_bits(buffer, type, i) == bits ? 1 : 0;
  return count;
}

} // namespace warpforge::gpu
