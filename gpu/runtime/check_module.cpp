#include "gpu/runtime/check_module.hpp"

#include "gpu/check/poison.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/runtime/cuda_call.hpp"
#include "gpu/runtime/kernel_module.hpp"

#include <algorithm>
#include <utility>

namespace warpforge::embedded {
extern const std::string_view runner_counter_generator_header;
extern const std::string_view runner_check_report_header;
extern const std::string_view runner_check_kernels_source;
} // namespace warpforge::embedded

namespace warpforge::gpu {

namespace {

constexpr unsigned threads_per_block = 256;
// Blocks per SM for the grid-stride check kernels: enough to keep the memory system busy.
constexpr unsigned blocks_per_sm = 8;

// The text with its `#pragma once` lines dropped (they only warn in a main file), after a #line
// marker naming where it comes from, so NVRTC's messages point at the right file.
std::string part(std::string_view name, std::string_view text) {
  std::string out = "#line 1 \"" + std::string{name} + "\"\n";
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    if (end == std::string_view::npos)
      end = text.size();
    const auto line = text.substr(at, end - at);
    out += line.starts_with("#pragma once") ? std::string_view{"// (#pragma once)"} : line;
    out += '\n';
    at = end + 1;
  }
  return out;
}

constexpr std::array<std::string_view, 12> compare_entries{
  "warpforge_compare_f16", "warpforge_compare_bf16", "warpforge_compare_f32",
  "warpforge_compare_f64", "warpforge_compare_i8",   "warpforge_compare_i16",
  "warpforge_compare_i32", "warpforge_compare_i64",  "warpforge_compare_u8",
  "warpforge_compare_u16", "warpforge_compare_u32",  "warpforge_compare_u64"};

} // namespace

std::string check_kernels_source() {
  return part("gpu/check/counter_generator.hpp", embedded::runner_counter_generator_header) +
         part("gpu/runtime/check_report.hpp", embedded::runner_check_report_header) +
         part("gpu/runtime/check_kernels.cu", embedded::runner_check_kernels_source);
}

compile_request check_kernels_compile_request(const std::string& arch) {
  compile_request request;
  request.source = check_kernels_source();
  request.source_name = "warpforge_check_kernels.cu";
  request.entry = "warpforge_fill";
  request.arch = arch;
  request.std = "c++17";
  request.line_info = false;
  // No FMA contraction: the generator and the tolerance test must round as the host does.
  request.extra_flags = {"-fmad=false"};
  return request;
}

expected<check_module, std::string> check_module::build(const device_session& device,
                                                        std::optional<std::filesystem::path> cache_root) {
  const std::string arch = "sm_" + std::to_string(device.limits.major) + std::to_string(device.limits.minor);
  cached_compiler compiler{compile_cache{cache_root.value_or(default_cache_root())}};
  auto compiled = compiler.compile(check_kernels_compile_request(arch));
  if (!compiled)
    return unexpected("building the check kernels for " + arch + " with NVRTC (" +
                      std::string{to_string(compiled.error().kind)} + "): " + compiled.error().log);
  check_module out;
  out.api_ = device.api;
  out.sm_count_ = std::max(device.limits.sm_count, 1);
  out.cache_hit_ = compiled->cache_hit;
  out.compile_s_ = compiled->compile_s;
  const std::string image(compiled->cubin.begin(), compiled->cubin.end());
  auto module = load_module_image(*device.api, image);
  if (!module)
    return unexpected("loading the check kernels: " + module.error().to_string());
  out.module_ = *module;
  auto function = [&](std::string_view entry, CUfunction& f) -> call_result {
    return WARPFORGE_GPU_CALL(device.api->module_get_function(&f, out.module_, std::string{entry}.c_str()));
  };
  if (auto r = function("warpforge_fill", out.fill_); !r)
    return unexpected(r.error().to_string());
  if (auto r = function("warpforge_first_difference", out.first_difference_); !r)
    return unexpected(r.error().to_string());
  if (auto r = function("warpforge_sparse_poison", out.sparse_poison_); !r)
    return unexpected(r.error().to_string());
  if (auto r = function("warpforge_read_sweep", out.read_sweep_); !r)
    return unexpected(r.error().to_string());
  for (std::size_t i = 0; i < compare_entries.size(); ++i)
    if (auto r = function(compare_entries[i], out.compare_[i]); !r)
      return unexpected(r.error().to_string());
  return out;
}

check_module::check_module(check_module&& o) noexcept
    : api_(o.api_), sm_count_(o.sm_count_), module_(std::exchange(o.module_, nullptr)), fill_(o.fill_),
      first_difference_(o.first_difference_), sparse_poison_(o.sparse_poison_), read_sweep_(o.read_sweep_),
      compare_(o.compare_), cache_hit_(o.cache_hit_), compile_s_(o.compile_s_) {}

check_module::~check_module() {
  if (module_)
    (void)api_->module_unload(module_);
}

call_result check_module::run(CUfunction function, std::uint64_t elements, void** params,
                              cudaStream_t stream) const {
  const std::uint64_t wanted = (elements + threads_per_block - 1) / threads_per_block;
  const auto blocks = static_cast<unsigned>(
    std::clamp<std::uint64_t>(wanted, 1, static_cast<std::uint64_t>(sm_count_) * blocks_per_sm));
  return WARPFORGE_GPU_CALL(api_->launch_kernel(function, blocks, 1, 1, threads_per_block, 1, 1, 0,
                                                stream, params, nullptr));
}

call_result check_module::fill(const generator::fill_plan& plan, void* out, std::uint64_t count,
                               cudaStream_t stream) const {
  generator::fill_plan by_value = plan;
  unsigned long long n = count;
  void* params[] = {&by_value, &out, &n};
  return run(fill_, count, params, stream);
}

call_result check_module::compare(config::dtype type, const void* got, const void* want,
                                  std::uint64_t count, const config::tolerance& tol,
                                  device_check_record* record, cudaStream_t stream) const {
  unsigned long long n = count;
  double rtol = tol.rtol;
  double atol = tol.atol;
  unsigned long long poison = poison_bits(type);
  void* params[] = {&got, &want, &n, &rtol, &atol, &poison, &record};
  return run(compare_[static_cast<std::size_t>(type)], count, params, stream);
}

call_result check_module::first_difference(const void* a, const void* b, std::uint64_t bytes,
                                            device_check_record* record, cudaStream_t stream) const {
  unsigned long long n = bytes;
  void* params[] = {&a, &b, &n, &record};
  return run(first_difference_, bytes / 8 + 8, params, stream);
}

call_result check_module::read_sweep(const void* buffer, std::uint64_t bytes, cudaStream_t stream) const {
  unsigned long long words = bytes / 16;
  void* params[] = {&buffer, &words};
  return run(read_sweep_, words, params, stream);
}

call_result check_module::sparse_poison(config::dtype type, const struct sparse_poison& p, void* out,
                                       std::uint64_t count, cudaStream_t stream) const {
  unsigned size = static_cast<unsigned>(config::size_of(type));
  unsigned long long n = count;
  unsigned long long key = p.key;
  unsigned long long one_in = p.one_in;
  unsigned long long always = p.always;
  unsigned long long poison = poison_bits(type);
  void* params[] = {&out, &size, &n, &key, &one_in, &always, &poison};
  return run(sparse_poison_, count, params, stream);
}

} // namespace warpforge::gpu
