#pragma once
// Element-wise comparison of a kernel's output with the reference output (docs/measurement.md).
//
//   auto r = compare_outputs(got_bytes, want_bytes, dtype::f32, config::tolerance_for(ref, f32));
//   if (r && !r->passed) report(r->first_bad_index, r->first_bad_got, r->first_bad_want);
//
// Floats (f16 and bf16 decoded from their bits, exactly) pass element i when
// |got - want| <= atol + rtol * |want|, with these special cases:
//   - want NaN: passes only if got is NaN too (any NaN: the reference says "undefined here");
//   - got NaN, want not NaN: fails (e.g. an output that stays poisoned);
//   - want +-inf: passes only if got is the same infinity; got inf, want finite: fails.
// Integers compare exactly, whatever the tolerance. Buffers are raw bytes in the GPU's (little
// endian) order.

#include "config/dtype.hpp"
#include "config/problem_spec.hpp"
#include "foundation/expected/expected.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace warpforge::gpu {

enum class compare_error : std::uint8_t {
  size_mismatch,   // got and want have different byte sizes
  partial_element, // the byte size is not a multiple of the dtype's element size
};
std::string_view to_string(compare_error error);
std::optional<compare_error> compare_error_from_string(std::string_view text);
inline constexpr compare_error all_compare_errors[] = {compare_error::size_mismatch,
                                                       compare_error::partial_element};

struct compare_report {
  bool passed = true;             // every element within tolerance
  std::size_t elements = 0;       // elements compared
  std::size_t mismatches = 0;     // elements outside tolerance
  double max_abs_error = 0.0;     // output units, max |got - want| over elements where neither is
                                  // NaN (inf where exactly one side is infinite)
  double max_rel_error = 0.0;     // ratio, 1.0 = 100%: |got - want| / |want| over the same
                                  // elements; inf where want is 0 and got is not
  std::optional<std::size_t> first_bad_index; // element index of the first mismatch
  double first_bad_got = 0.0;     // its value (64-bit integers beyond 2^53 rounded)
  double first_bad_want = 0.0;    // the reference's value there
  std::uint64_t first_bad_got_bits = 0;  // raw bits of got there, zero-extended
  std::uint64_t first_bad_want_bits = 0; // raw bits of want there
  std::size_t poisoned_elements = 0; // elements of got still carrying the poison pattern
                                     // (poison.hpp; for integers a hint, not proof)

  bool operator==(const compare_report&) const = default;
};

/// Compares `got` with `want`, both `type` elements; `tol` applies to floating dtypes only.
expected<compare_report, compare_error> compare_outputs(std::span<const std::byte> got,
                                                        std::span<const std::byte> want,
                                                        config::dtype type,
                                                        const config::tolerance& tol);

/// Whether one float pair passes the rule above (exposed for tests and diagnostics).
bool within_tolerance(double got, double want, const config::tolerance& tol);

} // namespace warpforge::gpu
