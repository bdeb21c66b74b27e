#include "gpu/check/compare.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/check/element_access.hpp"
#include "gpu/check/poison.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace warpforge::gpu {

using config::dtype;

constexpr vocabulary::enum_word<compare_error> compare_error_words[] = {
    {compare_error::size_mismatch, "size_mismatch"},
    {compare_error::partial_element, "partial_element"},
};
static_assert(vocabulary::covers(compare_error_words, all_compare_errors));

std::string_view to_string(compare_error error) { return vocabulary::word_of(compare_error_words, error); }

std::optional<compare_error> compare_error_from_string(std::string_view text) {
  return vocabulary::value_of(compare_error_words, text);
}

bool within_tolerance(double got, double want, const config::tolerance& tol) {
  if (std::isnan(want))
    return std::isnan(got);
  if (std::isnan(got))
    return false;
  if (std::isinf(want) || std::isinf(got))
    return got == want;
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}

namespace {

// |got - want| for integers of `type` without overflow (64-bit differences may exceed int64).
double integer_distance(dtype type, std::uint64_t got_bits, std::uint64_t want_bits) {
  if (config::is_signed_integer(type)) {
    const std::size_t shift = 64 - 8 * config::size_of(type); // sign-extend to 64 bits
    const auto got = static_cast<std::int64_t>(got_bits << shift) >> shift;
    const auto want = static_cast<std::int64_t>(want_bits << shift) >> shift;
    const std::uint64_t distance = got >= want ? static_cast<std::uint64_t>(got) - static_cast<std::uint64_t>(want)
                                               : static_cast<std::uint64_t>(want) - static_cast<std::uint64_t>(got);
    return static_cast<double>(distance);
  }
  return static_cast<double>(got_bits >= want_bits ? got_bits - want_bits : want_bits - got_bits);
}

} // namespace

expected<compare_report, compare_error> compare_outputs(std::span<const std::byte> got,
                                                        std::span<const std::byte> want,
                                                        dtype type, const config::tolerance& tol) {
  if (got.size() != want.size())
    return unexpected{compare_error::size_mismatch};
  const std::size_t element_bytes = config::size_of(type);
  if (got.size() % element_bytes != 0)
    return unexpected{compare_error::partial_element};

  compare_report report;
  report.elements = got.size() / element_bytes;
  report.poisoned_elements = count_poisoned(got, type);
  const bool floating = config::is_floating_point(type);
  for (std::size_t i = 0; i < report.elements; ++i) {
    const std::uint64_t got_bits = load_bits(got, type, i);
    const std::uint64_t want_bits = load_bits(want, type, i);
    const double got_value = to_double(type, got_bits);
    const double want_value = to_double(type, want_bits);
    bool ok = false;
    double distance = 0.0;
    if (floating) {
      ok = within_tolerance(got_value, want_value, tol);
      if (!std::isnan(got_value) && !std::isnan(want_value))
        distance = got_value == want_value ? 0.0 : std::fabs(got_value - want_value);
      else
        distance = std::numeric_limits<double>::quiet_NaN(); // not counted in the maxima
    } else {
      ok = got_bits == want_bits;
      distance = integer_distance(type, got_bits, want_bits);
    }
    if (!std::isnan(distance)) {
      report.max_abs_error = std::max(report.max_abs_error, distance);
      const double relative = distance == 0.0 ? 0.0
                              : want_value == 0.0 ? std::numeric_limits<double>::infinity()
                                                  : distance / std::fabs(want_value);
      report.max_rel_error = std::max(report.max_rel_error, relative);
    }
    if (ok)
      continue;
    ++report.mismatches;
    if (!report.first_bad_index) {
      report.first_bad_index = i;
      report.first_bad_got = got_value;
      report.first_bad_want = want_value;
      report.first_bad_got_bits = got_bits;
      report.first_bad_want_bits = want_bits;
    }
  }
  report.passed = report.mismatches == 0;
  return report;
}

} // namespace warpforge::gpu
