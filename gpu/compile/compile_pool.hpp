#pragma once
// A fixed set of compile threads, so the next candidates compile while the GPUs measure.
// submit() never blocks on a compile; the future holds its result. The destructor stops taking
// work, finishes what was queued (drain), then joins the threads.

#include "gpu/compile/compile_options.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace warpforge::gpu {

/// The most compile threads the default pool starts (NVRTC compiles use one core each).
inline constexpr std::size_t max_default_compile_threads = 4;

/// min(hardware threads, max_default_compile_threads), at least 1.
std::size_t default_compile_threads();

class compile_pool {
public:
  using compile_function = std::function<compile_result(const compile_request&)>;

  /// `compile` must be thread-safe: compile_kernel, or a cached_compiler's compile.
  explicit compile_pool(compile_function compile = compile_kernel,
                        std::size_t threads = default_compile_threads());
  compile_pool(const compile_pool&) = delete;
  compile_pool& operator=(const compile_pool&) = delete;
  /// Drains the queue, then joins.
  ~compile_pool();

  std::future<compile_result> submit(compile_request request);

  std::size_t thread_count() const { return workers_.size(); }
  /// Requests waiting for a thread (not counting those compiling now).
  std::size_t queued() const;

private:
  void work();

  compile_function compile_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<compile_result()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

} // namespace warpforge::gpu
