#pragma once
// Device buffers the runner keeps across requests: the pristine inputs per (seed, argument spec)
// and the reference's outputs per (reference CUBIN content, entry, launch, arguments, seed). A
// byte budget bounds it; beyond it the least recently used entries go. An entry still in use by
// the running request stays alive (shared_ptr) until the request lets go of it.
// Runner-only (warpforge_gpu_runtime).
//
//   if (auto hit = cache.find(key)) use(*hit);
//   else cache.put(key, std::make_shared<cached_buffers>(...), bytes);

#include "gpu/runtime/device_session.hpp"

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace warpforge::gpu {

/// One cache entry.
struct cached_buffers {
  std::vector<device_memory> buffers; // inputs: the one pristine buffer; references: by argument
                                        // index (empty where the argument is an input or scalar)
  double reference_s = 0.0;            // reference entries: seconds one launch took
};

class device_cache {
public:
  explicit device_cache(std::size_t budget_bytes);

  /// The entry for `key`, now the most recently used; null on a miss.
  std::shared_ptr<cached_buffers> find(const std::string& key);

  /// Keeps `value` (`bytes` of device memory) under `key`, evicting the least recently used
  /// entries until the budget holds. An entry larger than the whole budget is not kept.
  void put(const std::string& key, std::shared_ptr<cached_buffers> value, std::size_t bytes);

  /// Drops every entry (a new problem).
  void clear();

  std::size_t bytes() const { return bytes_; }         // bytes of the entries kept
  std::size_t budget() const { return budget_; }       // bytes
  std::size_t entries() const { return lru_.size(); }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }
  std::uint64_t evictions() const { return evictions_; }

private:
  struct entry {
    std::string key;
    std::shared_ptr<cached_buffers> value;
    std::size_t bytes = 0;
  };
  void evict_to(std::size_t budget);

  std::size_t budget_;
  std::size_t bytes_ = 0;
  std::list<entry> lru_; // most recently used first
  std::map<std::string, std::list<entry>::iterator> index_;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
  std::uint64_t evictions_ = 0;
};

} // namespace warpforge::gpu
