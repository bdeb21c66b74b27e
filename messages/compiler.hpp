#pragma once
// compiler: candidate → compiled_candidate (NVRTC for kernels, nvcc for whole programs), with a
// content-addressed cache so an identical candidate never compiles twice.

#include "messages/outcome.hpp"
#include "messages/proposer.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <cstdint>
#include <string>

namespace warpforge::messages {

/// Per-kernel resources read from the CUBIN, no GPU needed.
struct resource_usage {
  std::uint32_t registers = 0;         // per thread
  std::uint32_t spill_bytes = 0;       // local memory per thread, bytes
  std::uint32_t static_smem_bytes = 0; // per block, bytes
  std::uint32_t max_threads = 0;       // per block the kernel can launch with
  friend bool operator==(const resource_usage&, const resource_usage&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, resource_usage& x) {
  return f(caf::meta::type_name("resource_usage"), x.registers, x.spill_bytes,
           x.static_smem_bytes, x.max_threads);
}

struct compiled_candidate {
  candidate source;
  branch_outcome outcome = branch_outcome::not_run; // passed or compile_error
  std::string arch;        // what was asked of NVRTC, e.g. "sm_90a"
  std::string cache_key;   // content hash of source, options, NVRTC version and arch
  std::string cubin_path;  // in the run directory or the compile cache
  std::string ptx_path;
  std::string log;         // the compiler's log, with its line numbers
  resource_usage resources;
  double compile_s = 0;    // wall seconds; 0 on a cache hit
  bool cache_hit = false;
  friend bool operator==(const compiled_candidate&, const compiled_candidate&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, compiled_candidate& x) {
  return f(caf::meta::type_name("compiled_candidate"), x.source, x.outcome, x.arch, x.cache_key,
           x.cubin_path, x.ptx_path, x.log, x.resources, x.compile_s, x.cache_hit);
}

using compiler_actor = caf::typed_actor<
  caf::replies_to<candidate>::with<compiled_candidate>, // compile (or hit the cache)
  status_handler>;

} // namespace warpforge::messages
