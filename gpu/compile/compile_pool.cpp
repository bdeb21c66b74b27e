#include "gpu/compile/compile_pool.hpp"

#include <algorithm>

namespace warpforge::gpu {

std::size_t default_compile_threads() {
  const std::size_t hardware = std::thread::hardware_concurrency();
  return std::clamp<std::size_t>(hardware, 1, max_default_compile_threads);
}

compile_pool::compile_pool(compile_function compile, std::size_t threads)
    : compile_(std::move(compile)) {
  threads = std::max<std::size_t>(threads, 1);
  workers_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i)
    workers_.emplace_back([this] { work(); });
}

compile_pool::~compile_pool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_)
    worker.join();
}

std::future<compile_result> compile_pool::submit(compile_request request) {
  std::packaged_task<compile_result()> task(
      [this, request = std::move(request)] { return compile_(request); });
  auto future = task.get_future();
  {
    const std::lock_guard lock(mutex_);
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
  return future;
}

std::size_t compile_pool::queued() const {
  const std::lock_guard lock(mutex_);
  return queue_.size();
}

void compile_pool::work() {
  for (;;) {
    std::packaged_task<compile_result()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty())
        return; // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task(); // an exception from compile_ lands in the future
  }
}

} // namespace warpforge::gpu
