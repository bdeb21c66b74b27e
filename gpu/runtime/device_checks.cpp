#include "gpu/runtime/device_checks.hpp"

#include "gpu/check/element_access.hpp"
#include "gpu/runtime/cuda_call.hpp"
#include "gpu/runtime/device_workspace.hpp"

#include <bit>

namespace warpforge::gpu {

namespace {

// Element `index` of a device buffer of `type`, read back.
expected<std::uint64_t, launch_failure> element_bits(const void* buffer, config::dtype type,
                                                     std::uint64_t index, cudaStream_t stream) {
  const std::size_t size = config::size_of(type);
  std::uint64_t bits = 0;
  if (auto r = WARPFORGE_GPU_CALL(cudaMemcpyAsync(&bits, static_cast<const std::byte*>(buffer) + index * size,
                                                  size, cudaMemcpyDeviceToHost, stream));
      !r)
    return unexpected(cuda_failure(r.error(), "reading element " + std::to_string(index)));
  if (auto r = WARPFORGE_GPU_CALL(cudaStreamSynchronize(stream)); !r)
    return unexpected(cuda_failure(r.error(), "reading element " + std::to_string(index)));
  return bits; // little endian: the element's bytes are the low bytes
}

} // namespace

expected<output_verdict, launch_failure> output_verdict_from(const device_check_record& record,
                                                             config::dtype type, std::uint64_t count,
                                                             const void* got, const void* want,
                                                             cudaStream_t stream) {
  output_verdict out;
  auto& report = out.report;
  report.elements = count;
  report.mismatches = record.mismatches;
  report.passed = record.mismatches == 0;
  report.max_abs_error = std::bit_cast<double>(record.max_abs_bits);
  report.max_rel_error = std::bit_cast<double>(record.max_rel_bits);
  report.poisoned_elements = record.got_poisoned;
  out.reference_poisoned = record.want_poisoned;
  if (record.first_complement != 0) {
    const std::uint64_t index = ~record.first_complement;
    auto got_bits = element_bits(got, type, index, stream);
    if (!got_bits)
      return unexpected(got_bits.error());
    auto want_bits = element_bits(want, type, index, stream);
    if (!want_bits)
      return unexpected(want_bits.error());
    report.first_bad_index = index;
    report.first_bad_got_bits = *got_bits;
    report.first_bad_want_bits = *want_bits;
    report.first_bad_got = to_double(type, *got_bits);
    report.first_bad_want = to_double(type, *want_bits);
  }
  return out;
}

input_check input_check_from(const device_check_record& record) {
  if (record.first_complement == 0)
    return {};
  return {false, static_cast<std::size_t>(~record.first_complement)};
}

expected<output_verdict, launch_failure> compare_on_device(device_workspace& workspace,
                                                           config::dtype type, const void* got,
                                                           const void* want, std::uint64_t count,
                                                           const config::tolerance& tol) {
  auto records = workspace.fresh_records(1);
  if (!records)
    return unexpected(records.error());
  if (auto r = workspace.checks().compare(type, got, want, count, tol, *records, workspace.stream()); !r)
    return unexpected(cuda_failure(r.error(), "comparing on the device"));
  auto read = workspace.read_records(1);
  if (!read)
    return unexpected(read.error());
  return output_verdict_from(read->front(), type, count, got, want, workspace.stream());
}

expected<input_check, launch_failure> first_difference_on_device(device_workspace& workspace,
                                                                 const void* before, const void* after,
                                                                 std::uint64_t bytes) {
  auto records = workspace.fresh_records(1);
  if (!records)
    return unexpected(records.error());
  if (auto r = workspace.checks().first_difference(before, after, bytes, *records, workspace.stream()); !r)
    return unexpected(cuda_failure(r.error(), "comparing bytes on the device"));
  auto read = workspace.read_records(1);
  if (!read)
    return unexpected(read.error());
  return input_check_from(read->front());
}

} // namespace warpforge::gpu
