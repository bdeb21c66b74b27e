#pragma once
// SHA-256 (FIPS 180-4) for the compile cache's content-addressed keys. Self-contained so that
// warpforge_gpu needs no crypto library; tested against the FIPS 180-4 example vectors.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace warpforge::gpu {

class sha256_hasher {
public:
  sha256_hasher();
  sha256_hasher& update(std::string_view bytes);
  /// The digest as 64 lowercase hex digits; the hasher is spent afterwards.
  std::string hex_digest();

private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_{};
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;     // bytes in buffer_
  std::uint64_t total_bytes_ = 0; // message length so far, bytes
};

/// SHA-256 of `bytes` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

} // namespace warpforge::gpu
