#pragma once
// The runner's check kernels (check_kernels.cu): built once per runner with NVRTC for the
// device's arch, through the compile cache (so a later runner loads the CUBIN from disk), then
// launched on the runner's stream. Runner-only (warpforge_gpu_runtime).
//
//   auto kernels = check_module::build(device);          // NVRTC or the cache, then load
//   kernels->fill(make_fill_plan(...), buffer.ptr, count, stream);          // seeded input
//   kernels->fill(constant_plan(type, poison_bits(type)), out.ptr, count, stream);   // poison
//   kernels->compare(type, got, want, count, tol, record, stream);   // device_check_record
//   kernels->sparse_poison(type, sparse_poison_for(random, n), out.ptr, n, stream);  // timed check
//
// Every call only queues work on `stream`; the caller synchronises and reads the records.

#include "config/dtype.hpp"
#include "config/problem_spec.hpp"
#include "foundation/expected/expected.hpp"
#include "gpu/check/counter_generator.hpp"
#include "gpu/compile/compile_options.hpp"
#include "gpu/runtime/check_report.hpp"
#include "gpu/runtime/device_session.hpp"
#include "gpu/runtime/timed_verification.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace warpforge::gpu {

/// The check kernels' whole source (the shared generator, the record, the kernels, with #line
/// markers naming each part), and the request that compiles it for `arch` ("sm_90").
std::string check_kernels_source();
compile_request check_kernels_compile_request(const std::string& arch);

class check_module {
public:
  /// Compiles (or finds in the cache under `cache_root`; default: default_cache_root()) and loads
  /// the check kernels for device 0. The error names the step (NVRTC's log, the load call).
  static expected<check_module, std::string> build(const device_session& device,
                                                   std::optional<std::filesystem::path> cache_root = {});

  check_module(check_module&&) noexcept;
  check_module& operator=(check_module&&) = delete;
  check_module(const check_module&) = delete;
  ~check_module();

  /// Elements [0, count) of `out` from `plan` (generator::generate_bits).
  call_result fill(const generator::fill_plan& plan, void* out, std::uint64_t count,
                   cudaStream_t stream) const;
  /// Compares `count` elements of `got` with `want` into `record` (which the caller reset).
  call_result compare(config::dtype type, const void* got, const void* want, std::uint64_t count,
                      const config::tolerance& tol, device_check_record* record,
                      cudaStream_t stream) const;
  /// The dtype's poison pattern at `p`'s sparse positions of `out` (timed_verification.hpp).
  call_result sparse_poison(config::dtype type, const struct sparse_poison& p, void* out,
                            std::uint64_t count, cudaStream_t stream) const;
  /// Reads `bytes` (a multiple of 16) of `buffer` and writes nothing: an L2 eviction that leaves
  /// clean lines (device_workspace::evict_l2_clean).
  call_result read_sweep(const void* buffer, std::uint64_t bytes, cudaStream_t stream) const;
  /// The first byte where `a` and `b` differ, into record->first_complement (reset by the caller).
  call_result first_difference(const void* a, const void* b, std::uint64_t bytes,
                               device_check_record* record, cudaStream_t stream) const;

  bool cache_hit() const { return cache_hit_; } // the CUBIN came from the compile cache
  double compile_s() const { return compile_s_; } // seconds NVRTC took (0 on a cache hit)

private:
  check_module() = default;
  call_result run(CUfunction function, std::uint64_t elements, void** params, cudaStream_t stream) const;

  const driver_api* api_ = nullptr;
  int sm_count_ = 1;
  CUmodule module_ = nullptr;
  CUfunction fill_ = nullptr;
  CUfunction first_difference_ = nullptr;
  CUfunction sparse_poison_ = nullptr;
  CUfunction read_sweep_ = nullptr;
  std::array<CUfunction, 12> compare_{}; // by config::dtype
  bool cache_hit_ = false;
  double compile_s_ = 0.0;
};

} // namespace warpforge::gpu
