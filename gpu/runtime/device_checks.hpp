#pragma once
// Turning the device's comparison records (check_report.hpp) into the host's verdicts: the same
// compare_report that gpu/check/compare.hpp's compare_outputs gives for the same buffers, and the
// same input_check as inputs_unchanged. Only the record, and for a mismatch the first bad
// element of each side, cross to the host. Runner-only (warpforge_gpu_runtime).
//
//   auto verdict = compare_on_device(workspace, dtype::f32, got, want, n, tol); // one comparison
//   if (verdict && !verdict->report.passed) ...

#include "config/dtype.hpp"
#include "config/problem_spec.hpp"
#include "foundation/expected/expected.hpp"
#include "gpu/check/compare.hpp"
#include "gpu/check/input_fill.hpp"
#include "gpu/runtime/check_report.hpp"
#include "gpu/runtime/device_session.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>

namespace warpforge::gpu {

class device_workspace;

/// One output's comparison with the reference's.
struct output_verdict {
  compare_report report;
  std::uint64_t reference_poisoned = 0; // elements of the reference's output left poisoned
};

/// The verdict a record holds for `count` elements of `type`; for a mismatch the first bad
/// element of `got` and `want` is read back (waits for `stream`).
expected<output_verdict, launch_failure> output_verdict_from(const device_check_record& record,
                                                             config::dtype type, std::uint64_t count,
                                                             const void* got, const void* want,
                                                             cudaStream_t stream);

/// An input's byte check from its record.
input_check input_check_from(const device_check_record& record);

/// One comparison on the device, queued, waited for and read back.
expected<output_verdict, launch_failure> compare_on_device(device_workspace& workspace,
                                                           config::dtype type, const void* got,
                                                           const void* want, std::uint64_t count,
                                                           const config::tolerance& tol);

/// One input-mutation check on the device (`bytes` bytes of `before` and `after`).
expected<input_check, launch_failure> first_difference_on_device(device_workspace& workspace,
                                                                 const void* before, const void* after,
                                                                 std::uint64_t bytes);

} // namespace warpforge::gpu
