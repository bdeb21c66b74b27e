#pragma once
// A per-GPU advisory lock, so two warpforge processes on one host never time on the same GPU at
// once. Keyed by the GPU's UUID (stable whatever CUDA_VISIBLE_DEVICES says), held with flock(2)
// on a file in a host-wide folder, released on destruction or when the process dies (the kernel
// drops flock locks with the last descriptor, so a crash never leaves a GPU locked).
// The holder writes its pid and a description into the file, so a refused process can say who
// has the GPU.

#include "foundation/expected/expected.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::gpu {

/// Where lock files live: $WARPFORGE_LOCK_DIR, else /tmp/warpforge-locks (mode 1777).
std::filesystem::path default_lock_dir();

/// How often a waiting acquire() tries again.
inline constexpr std::chrono::milliseconds lock_retry_interval{50};

enum class lock_policy {
  wait, // wait up to the timeout for the holder to finish
  fail, // refuse at once when another process holds the GPU
};

enum class gpu_lock_error_kind {
  busy,    // another process holds it (policy fail, or the wait timed out)
  invalid, // the UUID is empty or not usable as a file name
  io,      // the lock folder or file could not be created or opened
};

std::string_view to_string(gpu_lock_error_kind kind);
std::optional<gpu_lock_error_kind> gpu_lock_error_kind_from_string(std::string_view text);
inline constexpr gpu_lock_error_kind all_gpu_lock_error_kinds[] = {
  gpu_lock_error_kind::busy, gpu_lock_error_kind::invalid, gpu_lock_error_kind::io};

struct gpu_lock_error {
  gpu_lock_error_kind kind = gpu_lock_error_kind::io;
  std::string detail; // names the GPU, the lock file and, when busy, the holder
  std::string to_string() const;
};

class gpu_lock {
public:
  /// Takes the lock of `gpu_uuid` for this process; `holder` describes us to whoever is refused
  /// ("warpforge run nightly.toml"). With lock_policy::wait, retries until `timeout`.
  static expected<gpu_lock, gpu_lock_error> acquire(std::string_view gpu_uuid, std::string_view holder,
                                                    lock_policy policy,
                                                    std::chrono::milliseconds timeout,
                                                    const std::filesystem::path& dir = default_lock_dir());

  gpu_lock(gpu_lock&& other) noexcept;
  gpu_lock& operator=(gpu_lock&& other) noexcept;
  gpu_lock(const gpu_lock&) = delete;
  gpu_lock& operator=(const gpu_lock&) = delete;
  ~gpu_lock();

  const std::filesystem::path& path() const { return path_; }

private:
  gpu_lock(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  void release();

  int fd_ = -1;
  std::filesystem::path path_;
};

} // namespace warpforge::gpu
