#pragma once
// Poisoning output buffers before a launch, and finding elements the kernel never wrote.
//
// Floats are poisoned with a *signalling* NaN: arithmetic never produces one (IEEE 754 operations
// return quiet NaNs; CUDA's canonical NaN is 0x7FFFFFFF), so an element still carrying the
// pattern after the launch was not written. The patterns share the 0xBAD motif to be spotted in
// hex dumps, and bf16's is the upper half of f32's:
//
//   f16  0x7DBA                signalling NaN (exponent all ones, quiet bit 9 clear, payload 0x1BA)
//   bf16 0x7FBA                signalling NaN (quiet bit 6 clear, payload 0x3A)
//   f32  0x7FBADBAD            signalling NaN (quiet bit 22 clear, payload 0x3ADBAD)
//   f64  0x7FF0BADBADBADBAD    signalling NaN (quiet bit 51 clear, payload 0xBADBADBADBAD)
//
// Integers have no value a kernel cannot produce: they get a fixed, unlikely pattern (the bytes
// BA DB AD repeated from the most significant byte: u8 0xBA, u16 0xBADB, u32 0xBADBADBA,
// u64 0xBADBADBADBADBADB), so for integers count_poisoned is a hint (a kernel may legitimately
// write that value), for floats it is proof.

#include "config/dtype.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace warpforge::gpu {

inline constexpr std::uint16_t poison_f16 = 0x7DBA;
inline constexpr std::uint16_t poison_bf16 = 0x7FBA;
inline constexpr std::uint32_t poison_f32 = 0x7FBADBAD;
inline constexpr std::uint64_t poison_f64 = 0x7FF0BADBADBADBADull;
inline constexpr std::uint8_t poison_8 = 0xBA;
inline constexpr std::uint16_t poison_16 = 0xBADB;
inline constexpr std::uint32_t poison_32 = 0xBADBADBA;
inline constexpr std::uint64_t poison_64 = 0xBADBADBADBADBADBull;

/// The poison bit pattern of `type`, zero-extended to 64 bits.
std::uint64_t poison_bits(config::dtype type);

/// Writes the poison pattern into every whole element of `buffer` (a trailing partial element,
/// if any, is left as is).
void fill_poison(std::span<std::byte> buffer, config::dtype type);

/// Whole elements of `buffer` that still carry the poison pattern.
std::size_t count_poisoned(std::span<const std::byte> buffer, config::dtype type);

} // namespace warpforge::gpu
