#include "pipeline/kernel_ledger.hpp"

#include "foundation/files/atomic_write.hpp"
#include "gpu/compile/compile_cache.hpp"

#include <set>

namespace warpforge::pipeline {

namespace fs = std::filesystem;

namespace {

std::string cubin_key(const std::vector<std::uint8_t>& cubin) {
  return gpu::cache_detail::sha256_hex({reinterpret_cast<const char*>(cubin.data()), cubin.size()});
}

} // namespace

kernel_ledger::compile_function kernel_ledger::recording(compile_function compile) {
  return [this, compile = std::move(compile)](const gpu::compile_request& request) {
    auto result = compile(request);
    if (result)
      remember(request, result->cubin);
    return result;
  };
}

void kernel_ledger::remember(const gpu::compile_request& request, const std::vector<std::uint8_t>& cubin) {
  auto key = cubin_key(cubin);
  std::lock_guard lock{mutex_};
  by_cubin_.insert_or_assign(std::move(key), request);
}

std::size_t kernel_ledger::size() const {
  std::lock_guard lock{mutex_};
  return by_cubin_.size();
}

expected<std::vector<kernel_build>, std::string> kernel_ledger::builds_for(const gpu::race_request& request) const {
  std::vector<const gpu::kernel_launch*> launches;
  for (const auto& k : request.kernels)
    launches.push_back(&k);
  if (request.reference)
    launches.push_back(&*request.reference);
  std::vector<kernel_build> builds;
  std::set<std::string> seen;
  for (const auto* launch : launches) {
    const auto path = launch->cubin_path.string();
    if (!seen.insert(path).second)
      continue;
    auto bytes = gpu::cache_detail::read_file(launch->cubin_path);
    if (!bytes)
      return unexpected{"cannot send " + path + " to a host: " + bytes.error().detail};
    auto key = gpu::cache_detail::sha256_hex(*bytes);
    std::lock_guard lock{mutex_};
    auto it = by_cubin_.find(key);
    if (it == by_cubin_.end())
      return unexpected{"cannot send " + path + " to a host: this coordinator did not compile it (no source known)"};
    builds.push_back({path, it->second, key});
  }
  return builds;
}

expected<void, std::string> rebuild_on_host(gpu::race_request& request, const std::vector<kernel_build>& builds,
                                            const host_compile_function& compile, const fs::path& kernel_dir) {
  std::map<std::string, std::string> host_path; // the coordinator's CUBIN path -> the host's
  for (const auto& b : builds) {
    // The hash is a file name here: refuse anything but hex digits (it comes over the network).
    if (b.cubin_sha256.size() != 64 || b.cubin_sha256.find_first_not_of("0123456789abcdef") != std::string::npos)
      return unexpected{"kernel " + b.request.entry + ": its CUBIN hash is not 64 hex digits"};
    const auto path = kernel_dir / (b.cubin_sha256 + ".cubin");
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      auto result = compile(b.request);
      if (!result)
        return unexpected{"kernel " + b.request.entry + " did not compile on this host: " + result.error().log};
      if (auto written = files::write_file_atomically(
            path, {reinterpret_cast<const char*>(result->cubin.data()), result->cubin.size()});
          !written)
        return unexpected{written.error()};
    }
    host_path[b.cubin_path] = path.string();
  }
  auto point = [&](gpu::kernel_launch& launch) -> expected<void, std::string> {
    auto it = host_path.find(launch.cubin_path.string());
    if (it == host_path.end())
      return unexpected{"the race names " + launch.cubin_path.string() + " without its source"};
    launch.cubin_path = it->second;
    return {};
  };
  for (auto& k : request.kernels)
    if (auto ok = point(k); !ok)
      return ok;
  if (request.reference)
    if (auto ok = point(*request.reference); !ok)
      return ok;
  return {};
}

} // namespace warpforge::pipeline
