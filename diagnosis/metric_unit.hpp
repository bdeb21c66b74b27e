#pragma once
// The units of diagnosis metrics, how Nsight's units convert into them, and how values print.
//
// warpforge stores SI base quantities (STYLE 8): seconds, bytes, bytes/s, FLOP, FLOP/s, and ratios
// with 1.0 = 100%. Nsight Compute (ncu and CUPTI's range profiler, which share metric names)
// reports '%' for ratios, nanoseconds for durations and bytes with SI prefixes; from_nsight()
// converts. The conversions, all exact:
//
//   Nsight unit                                 -> warpforge unit      factor
//   %                                           -> ratio               / 100
//   nsecond | usecond | msecond | second        -> seconds             1e-9 | 1e-6 | 1e-3 | 1
//   [K|M|G|T|P]byte[/<anything but second>]     -> bytes               1e3^k (SI, as ncu prints)
//   [K|M|G|T|P]byte/second                      -> bytes_per_second    1e3^k
//   [K|M|G|T|P]<count word>[/...], "" , other   -> any count unit      1e3^k for the known count
//                                                  (instructions, ...) words (inst, cycle, sector,
//                                                                      request, warp, block, thread,
//                                                                      register, wavefront), else 1
//
// A unit of the wrong kind (a '%' for a byte count, bytes for a duration) is an error, never a
// silent scale. `ncu --print-units base` avoids the prefixes altogether and is what warpforge asks for.

#include "foundation/expected/expected.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::diagnosis {

enum class metric_unit : std::uint8_t {
  ratio,                  // 1.0 = 100%
  seconds,                // s
  bytes,                  // B
  bytes_per_second,       // B/s
  flop,                   // floating-point operations (an FMA counts 2)
  flop_per_second,        // FLOP/s
  flop_per_byte,          // FLOP per DRAM byte (arithmetic intensity)
  instructions,           // executed instructions (warp- or thread-level: the label says which)
  instructions_per_cycle, // instructions per cycle (IPC)
  cycles,                 // clock cycles
  sectors,                // 32-byte memory sectors
  requests,               // memory requests (one per warp-level memory instruction)
  sectors_per_request,    // sectors per request (coalescing; 4 = ideal for 4-byte words)
  conflicts,              // shared-memory bank conflicts
  registers_per_thread,   // registers per thread
  blocks,                 // thread blocks
  threads,                // threads
  warps,                  // warps
  waves,                  // waves of blocks over all SMs
  count,                  // a plain number
};

inline constexpr std::array all_metric_units{
  metric_unit::ratio,         metric_unit::seconds,
  metric_unit::bytes,         metric_unit::bytes_per_second,
  metric_unit::flop,          metric_unit::flop_per_second,
  metric_unit::flop_per_byte, metric_unit::instructions,
  metric_unit::instructions_per_cycle, metric_unit::cycles,
  metric_unit::sectors,       metric_unit::requests,
  metric_unit::sectors_per_request, metric_unit::conflicts,
  metric_unit::registers_per_thread, metric_unit::blocks,
  metric_unit::threads,       metric_unit::warps,
  metric_unit::waves,         metric_unit::count,
};

/// The name used in metric_schema.toml ("ratio", "bytes_per_second", ...).
std::string_view to_string(metric_unit unit);
std::optional<metric_unit> metric_unit_from_string(std::string_view text);

/// What follows a printed value: "%", "s", "B/s", "inst/cycle", ... ("" for count).
std::string_view symbol(metric_unit unit);

/// A value for people: "87.3 %", "12.4 us", "2.15 GB", "3.35 TB/s", "1.85 inst/cycle", "256
/// registers/thread". Bytes and rates use SI prefixes (1 GB = 1e9 B); non-finite values print as
/// "n/a".
std::string format_value(double value, metric_unit unit);

/// `value`, reported by Nsight in `nsight_unit` (the CSV's units row), in `target` units; the
/// error names both units when they are of different kinds.
expected<double, std::string> from_nsight(double value, std::string_view nsight_unit,
                                          metric_unit target);

/// The unit Nsight uses for `target`'s kind with `--print-units base`, which is also what CUPTI's
/// range profiler returns: "%", "nsecond", "byte", "byte/second" or "" (counts).
std::string_view nsight_base_unit(metric_unit target);

} // namespace warpforge::diagnosis
