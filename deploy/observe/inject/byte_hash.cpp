#include "deploy/observe/inject/byte_hash.hpp"

namespace warpforge::observe::inject {

void byte_hash::add(const void* data, std::size_t size) {
  constexpr std::uint64_t prime = 1099511628211ull;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) state_ = (state_ ^ bytes[i]) * prime;
}

std::string byte_hash::hex() const {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 0; i < 16; ++i) out[15 - i] = digits[(state_ >> (4 * i)) & 0xf];
  return out;
}

std::string hash_budget::take(std::uint64_t bytes) {
  if (bytes > bytes_per_launch_)
    return "a launch's buffers (" + std::to_string(bytes) + " bytes) exceed the hash budget of " +
           std::to_string(bytes_per_launch_) + " bytes a launch: not hashed";
  std::uint32_t left = launches_left_.load();
  while (left > 0 && !launches_left_.compare_exchange_weak(left, left - 1)) {
  }
  if (left == 0) return "later launches of the kernel are not hashed (the first " + std::to_string(launches_) + " were)";
  return {};
}

} // namespace warpforge::observe::inject
