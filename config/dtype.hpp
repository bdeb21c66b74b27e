#pragma once
// Element types of kernel arguments, as spelled in specs ("f32", "bf16", "u8", ...).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace warpforge::config {

enum class dtype : std::uint8_t { f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64 };

std::string_view to_string(dtype type);
std::optional<dtype> dtype_from_string(std::string_view text);

/// Every value, for exhaustive tests, hints and documentation tables.
inline constexpr dtype all_dtypes[] = {
  dtype::f16, dtype::bf16, dtype::f32, dtype::f64, dtype::i8,  dtype::i16,
  dtype::i32, dtype::i64,  dtype::u8,  dtype::u16, dtype::u32, dtype::u64,
};

/// Bytes of one element.
std::size_t size_of(dtype type);

/// f16, bf16, f32, f64.
bool is_floating_point(dtype type);

/// i8 .. i64.
bool is_signed_integer(dtype type);

/// The dtype a C or NumPy spelling means ("float" -> f32, "int32" -> i32, "half" -> f16), for hints
/// only: specs must use the short names.
std::optional<dtype> dtype_from_alias(std::string_view text);

/// Whether `value` is representable in integer dtype `type` (always false for floating types).
bool fits_integer(dtype type, std::int64_t value);

} // namespace warpforge::config
