#include "gpu/runtime/device_cache.hpp"

namespace warpforge::gpu {

device_cache::device_cache(std::size_t budget_bytes) : budget_(budget_bytes) {}

std::shared_ptr<cached_buffers> device_cache::find(const std::string& key) {
  auto found = index_.find(key);
  if (found == index_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, found->second);
  return found->second->value;
}

void device_cache::put(const std::string& key, std::shared_ptr<cached_buffers> value, std::size_t bytes) {
  if (auto found = index_.find(key); found != index_.end()) {
    bytes_ -= found->second->bytes;
    lru_.erase(found->second);
    index_.erase(found);
  }
  if (bytes > budget_)
    return; // the request uses it and lets it go
  lru_.push_front(entry{key, std::move(value), bytes});
  index_[key] = lru_.begin();
  bytes_ += bytes;
  evict_to(budget_);
}

void device_cache::evict_to(std::size_t budget) {
  while (bytes_ > budget && !lru_.empty()) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
    ++evictions_;
  }
}

void device_cache::clear() {
  evictions_ += lru_.size();
  lru_.clear();
  index_.clear();
  bytes_ = 0;
}

} // namespace warpforge::gpu
