#include "config/dtype.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <limits>
#include <string_view>

namespace warpforge::config {

constexpr vocabulary::enum_word<dtype> dtype_words[] = {
    {dtype::f16, "f16"},
    {dtype::bf16, "bf16"},
    {dtype::f32, "f32"},
    {dtype::f64, "f64"},
    {dtype::i8, "i8"},
    {dtype::i16, "i16"},
    {dtype::i32, "i32"},
    {dtype::i64, "i64"},
    {dtype::u8, "u8"},
    {dtype::u16, "u16"},
    {dtype::u32, "u32"},
    {dtype::u64, "u64"},
};
static_assert(vocabulary::covers(dtype_words, all_dtypes));

std::string_view to_string(dtype type) { return vocabulary::word_of(dtype_words, type); }

std::optional<dtype> dtype_from_string(std::string_view text) {
  return vocabulary::value_of(dtype_words, text);
}

std::size_t size_of(dtype type) {
  switch (type) {
  case dtype::i8:
  case dtype::u8: return sizeof(std::uint8_t);
  case dtype::f16:
  case dtype::bf16:
  case dtype::i16:
  case dtype::u16: return sizeof(std::uint16_t);
  case dtype::f32:
  case dtype::i32:
  case dtype::u32: return sizeof(std::uint32_t);
  case dtype::f64:
  case dtype::i64:
  case dtype::u64: return sizeof(std::uint64_t);
  }
  return 0;
}

bool is_floating_point(dtype type) {
  return type == dtype::f16 || type == dtype::bf16 || type == dtype::f32 || type == dtype::f64;
}

bool is_signed_integer(dtype type) {
  return type == dtype::i8 || type == dtype::i16 || type == dtype::i32 || type == dtype::i64;
}

std::optional<dtype> dtype_from_alias(std::string_view text) {
  struct alias {
    std::string_view name;
    dtype type;
  };
  static constexpr alias aliases[] = {
    {"half", dtype::f16},          {"float16", dtype::f16},   {"__half", dtype::f16},
    {"bfloat16", dtype::bf16},     {"__nv_bfloat16", dtype::bf16},
    {"float", dtype::f32},         {"float32", dtype::f32},   {"fp32", dtype::f32},
    {"double", dtype::f64},        {"float64", dtype::f64},   {"fp64", dtype::f64},
    {"fp16", dtype::f16},          {"char", dtype::i8},       {"int8", dtype::i8},
    {"short", dtype::i16},         {"int16", dtype::i16},     {"int", dtype::i32},
    {"int32", dtype::i32},         {"long", dtype::i64},      {"int64", dtype::i64},
    {"uint8", dtype::u8},          {"uint16", dtype::u16},    {"unsigned", dtype::u32},
    {"uint", dtype::u32},          {"uint32", dtype::u32},    {"uint64", dtype::u64},
    {"size_t", dtype::u64},
  };
  for (const auto& entry : aliases)
    if (entry.name == text)
      return entry.type;
  return std::nullopt;
}

namespace {

template <class T>
bool in_range(std::int64_t value) {
  if constexpr (std::numeric_limits<T>::is_signed)
    return value >= std::numeric_limits<T>::min() && value <= std::numeric_limits<T>::max();
  else
    return value >= 0 && static_cast<std::uint64_t>(value) <= std::numeric_limits<T>::max();
}

} // namespace

bool fits_integer(dtype type, std::int64_t value) {
  switch (type) {
  case dtype::i8: return in_range<std::int8_t>(value);
  case dtype::i16: return in_range<std::int16_t>(value);
  case dtype::i32: return in_range<std::int32_t>(value);
  case dtype::i64: return true;
  case dtype::u8: return in_range<std::uint8_t>(value);
  case dtype::u16: return in_range<std::uint16_t>(value);
  case dtype::u32: return in_range<std::uint32_t>(value);
  case dtype::u64: return value >= 0;
  case dtype::f16:
  case dtype::bf16:
  case dtype::f32:
  case dtype::f64: return false;
  }
  return false;
}

} // namespace warpforge::config
