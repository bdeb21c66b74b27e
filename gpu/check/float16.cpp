#include "gpu/check/float16.hpp"

#include "gpu/check/counter_generator.hpp"

namespace warpforge::gpu {

// One rounding for the host and the device: the shared header's codecs (counter_generator.hpp).
double f16_to_double(std::uint16_t bits) { return generator::decode_binary(bits, 5, 10); }
std::uint16_t double_to_f16(double value) {
  return static_cast<std::uint16_t>(generator::encode_binary(value, 5, 10));
}
double bf16_to_double(std::uint16_t bits) { return generator::decode_binary(bits, 8, 7); }
std::uint16_t double_to_bf16(double value) {
  return static_cast<std::uint16_t>(generator::encode_binary(value, 8, 7));
}

} // namespace warpforge::gpu
