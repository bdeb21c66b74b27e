#pragma once
// What the runner keeps on device 0 from one request to the next (docs/measurement.md, "Inputs
// and the reference, once"): the check kernels, one stream, the cache of pristine inputs and
// reference outputs, the working buffers of the current problem, the comparison records and the
// L2 flush buffer. Made on the first request; a runner serves one request at a time.
// Runner-only (warpforge_gpu_runtime).
//
//   double setup_s = 0;
//   auto ws = device_workspace::get(setup_s);             // device 0 + check kernels, once
//   (*ws)->use_problem(request.args);                     // another problem: drop its buffers
//   auto pristine = (*ws)->pristine_inputs(request.args, seed, inputs_s);
//   auto working = (*ws)->working_buffers(request.args);
//   (*ws)->refresh(request.args, *pristine, *working);    // fresh inputs, poisoned outputs

#include "foundation/expected/expected.hpp"
#include "gpu/runner/race_request.hpp"
#include "gpu/runtime/check_module.hpp"
#include "gpu/runtime/device_cache.hpp"
#include "gpu/runtime/device_session.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::gpu {

/// The share of device 0's free memory (measured when the workspace is made) the cache may hold:
/// the rest stays for the working buffers, a reference being computed, and the kernels.
inline constexpr double cache_memory_share = 0.5;

/// The pristine inputs of one seed: entry i holds argument i's buffer (null for outputs and
/// scalars). Shared with the cache: an evicted entry lives while a request uses it.
using pristine_inputs = std::vector<std::shared_ptr<cached_buffers>>;

class device_workspace {
public:
  /// The runner's workspace, made on first use: device 0, the check kernels (compiled with NVRTC
  /// or loaded from the compile cache), a stream, the cache. `setup_s` gets the wall seconds that
  /// took (0 when it existed already). The error says why the runner cannot execute at all.
  static expected<device_workspace*, std::string> get(double& setup_s);

  const device_session& device() const { return device_; }
  const check_module& checks() const { return checks_; }
  cudaStream_t stream() const { return stream_; }
  device_cache& cache() { return cache_; }

  /// Makes `args` the current problem. Another problem's buffers (cache, working set) go.
  void use_problem(const std::vector<candidate_arg>& args);

  /// Argument i's pristine input for `seed` (input and inout buffers), generated on the device
  /// on a miss (`args` becomes the current problem, as in use_problem); `generated_s` grows by
  /// the wall seconds generating took. `rebuild`: generated again even on a hit (a fresh
  /// race_request), the new buffers replacing the cached ones. A failure names the argument (an
  /// invalid init spec, an allocation, a CUDA error).
  expected<pristine_inputs, launch_failure> pristine(const std::vector<candidate_arg>& args,
                                                     std::uint64_t seed, double& generated_s,
                                                     bool rebuild = false);

  /// The current problem's working buffers by argument index (null for scalars), allocated once
  /// per problem: every kernel of a race runs on them, after refresh().
  expected<std::vector<void*>, launch_failure> working_buffers(const std::vector<candidate_arg>& args);

  /// Queues fresh copies of the pristine inputs (device to device) and the poison pattern into
  /// the outputs of `buffers`.
  std::optional<launch_failure> refresh(const std::vector<candidate_arg>& args,
                                        const pristine_inputs& inputs, const std::vector<void*>& buffers);

  /// A device buffer of `bytes`; when the device is full, the cache is emptied and it tries once
  /// more. `what` names it in the failure.
  std::optional<launch_failure> allocate_evicting(device_memory& out, std::size_t bytes,
                                                  const std::string& what);

  /// `count` comparison records on the device, reset to "nothing found" (queued).
  expected<device_check_record*, launch_failure> fresh_records(std::size_t count);
  /// Reads `count` records back (waits for the stream).
  expected<std::vector<device_check_record>, launch_failure> read_records(std::size_t count);

  /// The L2 flush's scratch buffer (l2_flush_size_factor x L2), allocated on first use.
  expected<device_memory*, launch_failure> flush_buffer();
  /// Evicts the L2: a memset of flush_buffer() with `fill`, queued on the stream (cold races
  /// before every timed launch, as nvbench's l2flush). The lines it leaves are dirty, so their
  /// write-back falls into what runs next.
  std::optional<launch_failure> flush_l2(unsigned char fill = 0);
  /// Evicts the L2 by reading flush_buffer(), queued on the stream (user-replay profiles before
  /// every pass): the lines it leaves are clean, so a pass counts its kernel's traffic only, as
  /// under ncu's cache flush.
  std::optional<launch_failure> evict_l2_clean();

  device_workspace(const device_workspace&) = delete;
  device_workspace& operator=(const device_workspace&) = delete;
  ~device_workspace(); // never runs for the runner's own workspace (see get)

private:
  device_workspace(device_session device, check_module checks, cudaStream_t stream, std::size_t budget);

  device_session device_;
  check_module checks_;
  cudaStream_t stream_ = nullptr;
  device_cache cache_;
  std::string problem_;                   // buffers_signature of the current problem
  std::vector<device_memory> working_;    // by argument index
  device_memory records_;
  device_memory flush_;
};

/// The device bytes of buffer argument `b`.
std::uint64_t buffer_bytes(const candidate_buffer_arg& b);

/// What a problem's buffers are (names, dtypes, counts, roles, init specs), as a cache key part.
std::string buffers_signature(const std::vector<candidate_arg>& args);

} // namespace warpforge::gpu
