#pragma once
// What the buffer watch (buffer_watch.hpp) needs without CUDA, so the CPU tests run it: a hash of
// a buffer's bytes, fed chunk by chunk, and the budget that bounds how much a run may hash.
// FNV-1a 64 only tells "these bytes changed" (a launch's output), never authenticates anything.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace warpforge::observe::inject {

class byte_hash {
public:
  void add(const void* data, std::size_t size);
  /// 16 lowercase hex digits.
  std::string hex() const;

private:
  std::uint64_t state_ = 14695981039346656037ull; // the FNV-1a 64 offset basis
};

/// How much hashing a run may do: at most `launches` launches of the watched kernel are hashed,
/// each only when the distinct allocations it points into hold at most `bytes_per_launch` bytes
/// (a launch is hashed twice: before and after, each a device-to-host copy and a synchronise).
class hash_budget {
public:
  hash_budget(std::uint32_t launches, std::uint64_t bytes_per_launch)
    : launches_(launches), launches_left_(launches), bytes_per_launch_(bytes_per_launch) {}
  /// Why a launch of `bytes` is not hashed ("" = it is, and one launch of the budget is spent).
  std::string take(std::uint64_t bytes);

private:
  std::uint32_t launches_;
  std::atomic<std::uint32_t> launches_left_;
  std::uint64_t bytes_per_launch_;
};

/// The defaults of $WARPFORGE_OBSERVE_HASH_LAUNCHES and $WARPFORGE_OBSERVE_HASH_BYTES.
inline constexpr std::uint32_t default_hash_launches = 2;
inline constexpr std::uint64_t default_hash_bytes_per_launch = std::uint64_t{1} << 30; // 1 GiB

} // namespace warpforge::observe::inject
