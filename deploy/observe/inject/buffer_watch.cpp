#include "deploy/observe/inject/buffer_watch.hpp"

#include "deploy/observe/inject/byte_hash.hpp"
#include "deploy/observe/inject/demangle.hpp"
#include "deploy/observe/inject/observer.hpp"

#include <cuda.h>

#include <algorithm>
#include <map>

namespace warpforge::observe::inject {
namespace {

/// Device bytes are hashed through a host buffer of this size.
constexpr std::size_t copy_chunk_bytes = std::size_t{16} << 20;

std::string error_name(CUresult result) {
  const char* name = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name) return "CUresult " + std::to_string(result);
  return name;
}

/// Each distinct allocation's hash (by base), or why there is none.
struct hashes {
  std::map<std::uint64_t, std::string> by_allocation;
  std::string failure; // "" = every allocation hashed
};

hashes hash_allocations(const std::vector<buffer_observation>& buffers, const char* when) {
  hashes out;
  if (CUresult synced = cuCtxSynchronize(); synced != CUDA_SUCCESS) {
    out.failure = std::string("cuCtxSynchronize ") + when + " a watched launch: " + error_name(synced) +
                  ": buffers not hashed";
    return out;
  }
  std::vector<unsigned char> host;
  for (const buffer_observation& buffer : buffers) {
    if (out.by_allocation.contains(buffer.allocation)) continue;
    byte_hash hash;
    host.resize(std::min<std::uint64_t>(copy_chunk_bytes, buffer.allocation_bytes));
    for (std::uint64_t done = 0; done < buffer.allocation_bytes;) {
      std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(host.size(), buffer.allocation_bytes - done));
      if (CUresult copied = cuMemcpyDtoH(host.data(), buffer.allocation + done, chunk); copied != CUDA_SUCCESS) {
        out.failure = std::string("cuMemcpyDtoH ") + when + " a watched launch: " + error_name(copied) +
                      ": buffers not hashed";
        return out;
      }
      hash.add(host.data(), chunk);
      done += chunk;
    }
    out.by_allocation[buffer.allocation] = hash.hex();
  }
  return out;
}

hash_budget& the_budget() {
  static hash_budget* const budget = [] {
    observer& self = the_observer();
    return new hash_budget(self.hash_launches, self.hash_bytes_per_launch); // never destroyed (observer.hpp)
  }();
  return *budget;
}

} // namespace

std::optional<watched_launch> begin_watch(std::uint32_t correlation_id, const std::string& symbol,
                                          const std::vector<param_bytes>& params) {
  observer& self = the_observer();
  if (self.buffers_kernel.empty() || symbol.empty()) return std::nullopt;
  launch_record probe;
  probe.kernel = symbol;
  probe.demangled = demangle(symbol);
  if (!matches_kernel(probe, self.buffers_kernel)) return std::nullopt;
  watched_launch watch{correlation_id, {}, false};
  std::map<std::uint64_t, std::uint64_t> distinct; // allocation base -> bytes
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (params[i].size != 8) continue;
    auto address = as_unsigned(params[i]);
    if (!address || *address == 0) continue;
    CUdeviceptr base = 0;
    std::size_t bytes = 0;
    // Not a device address (a scalar, a host pointer): the driver says so, and it is not a buffer.
    if (cuMemGetAddressRange(&base, &bytes, static_cast<CUdeviceptr>(*address)) != CUDA_SUCCESS) continue;
    watch.buffers.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint64_t>(base), bytes, {}, {}});
    distinct[base] = bytes;
  }
  std::uint64_t total = 0;
  for (const auto& [base, bytes] : distinct) total += bytes;
  if (watch.buffers.empty()) return watch;
  if (std::string why = the_budget().take(total); !why.empty()) {
    self.notes.add(why);
    return watch;
  }
  hashes before = hash_allocations(watch.buffers, "before");
  if (!before.failure.empty()) {
    self.notes.add(before.failure);
    return watch;
  }
  for (buffer_observation& buffer : watch.buffers) buffer.before = before.by_allocation[buffer.allocation];
  watch.hashed = true;
  return watch;
}

void end_watch(watched_launch& watch) {
  observer& self = the_observer();
  if (watch.hashed) {
    hashes after = hash_allocations(watch.buffers, "after");
    if (!after.failure.empty()) {
      self.notes.add(after.failure);
      for (buffer_observation& buffer : watch.buffers) buffer.before.clear();
    } else {
      for (buffer_observation& buffer : watch.buffers) buffer.after = after.by_allocation[buffer.allocation];
    }
  }
  self.launches.set_buffers(watch.correlation_id, std::move(watch.buffers));
}

} // namespace warpforge::observe::inject
