#include "gpu/runtime/launch_occupancy.hpp"

#include <algorithm>
#include <array>

namespace warpforge::gpu {

namespace {

std::uint64_t round_up(std::uint64_t x, std::uint64_t unit) { return (x + unit - 1) / unit * unit; }

constexpr std::array launch_attribute_names{
  "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
  "launch__occupancy_limit_warps",     "launch__occupancy_limit_blocks",
  "launch__registers_per_thread",      "launch__shared_mem_per_block_static",
  "launch__shared_mem_per_block_dynamic", "launch__grid_size",
  "launch__block_size",                "launch__waves_per_multiprocessor",
};

// cudaOccMaxBlocksPerSMRegsLimit without partitioned global caching (a Pascal-only mode).
std::uint64_t registers_limit(const occupancy_device& d, const allocation_granularity& g, int registers,
                              std::uint64_t warps_per_block) {
  const std::uint64_t per_warp = round_up(static_cast<std::uint64_t>(registers) * d.warp_size, g.register_unit);
  const std::uint64_t per_block = per_warp * warps_per_block;
  // The hardware's launch check assumes a block's warps are spread over every sub-partition.
  const std::uint64_t assumed_per_block = per_warp * round_up(warps_per_block, g.sub_partitions);
  const auto block_registers = static_cast<std::uint64_t>(d.registers_per_block);
  if (registers > g.max_registers_per_thread || assumed_per_block > block_registers || per_block > block_registers)
    return 0;
  if (per_warp == 0)
    return static_cast<std::uint64_t>(d.max_blocks_per_sm); // no register use: no register limit
  const std::uint64_t per_sub_partition = static_cast<std::uint64_t>(d.registers_per_sm) / g.sub_partitions;
  const std::uint64_t warps_per_sm = per_sub_partition / per_warp * g.sub_partitions;
  return warps_per_sm / warps_per_block;
}

// cudaOccMaxBlocksPerSMSmemLimit with `per_sm` bytes of shared memory configured per SM.
std::uint64_t shared_limit(const occupancy_device& d, std::uint64_t per_sm, std::uint64_t allocated,
                           std::uint64_t static_and_dynamic) {
  // A block may use the default per-block size, or the opt-in size when it needs more (the runner
  // opts in: gpu/runtime/kernel_module.cpp); the driver's reserve comes on top (Ampere on).
  const std::uint64_t per_block_cap =
    (static_and_dynamic > d.shared_bytes_per_block ? d.shared_bytes_per_block_optin : d.shared_bytes_per_block) +
    d.reserved_shared_bytes_per_block;
  if (allocated > per_block_cap)
    return 0;
  if (allocated == 0)
    return static_cast<std::uint64_t>(d.max_blocks_per_sm); // no shared memory: no shared-memory limit
  return per_sm / allocated;
}

} // namespace

expected<allocation_granularity, std::string> granularity_for(int major, int minor) {
  allocation_granularity g;
  if (major < 3 || major > 12 || major == 4)
    return unexpected("compute capability " + std::to_string(major) + "." + std::to_string(minor) +
                      " is not in the CUDA occupancy calculator's tables (cuda_occupancy.h knows 3.x, 5.x-12.x)");
  g.register_unit = 256;                                   // every architecture since Fermi
  g.shared_unit_bytes = major >= 8 ? 128 : 256;            // Ampere on: 128 bytes
  g.sub_partitions = (major == 6 && minor == 0) ? 2 : 4;   // GP100 has two
  g.max_registers_per_thread = major >= 7 ? 256 : 255;
  return g;
}

expected<launch_occupancy, std::string> compute_launch_occupancy(const occupancy_device& d, const occupancy_kernel& k,
                                                                 const occupancy_launch& l) {
  auto granularity = granularity_for(d.compute_major, d.compute_minor);
  if (!granularity)
    return unexpected(granularity.error());
  const std::pair<const char*, long long> divisors[] = {
    {"warp size", d.warp_size},          {"SM count", d.sm_count},
    {"threads per SM", d.max_threads_per_sm}, {"blocks per SM", d.max_blocks_per_sm},
    {"registers per SM", d.registers_per_sm}, {"block size", static_cast<long long>(l.block_threads)},
  };
  for (const auto& [what, value] : divisors)
    if (value <= 0)
      return unexpected(std::string{"launch occupancy: the "} + what + " is " + std::to_string(value));

  launch_occupancy o;
  o.registers_per_thread = k.registers_per_thread;
  o.static_shared_bytes = k.static_shared_bytes;
  o.dynamic_shared_bytes = l.dynamic_shared_bytes;
  o.grid_size = l.grid_blocks;
  o.block_size = l.block_threads;

  const auto warp = static_cast<std::uint64_t>(d.warp_size);
  const std::uint64_t warps_per_block = (l.block_threads + warp - 1) / warp;
  o.limit_blocks = static_cast<std::uint64_t>(d.max_blocks_per_sm);
  o.limit_warps = l.block_threads > static_cast<std::uint64_t>(d.max_threads_per_block)
                    ? 0
                    : static_cast<std::uint64_t>(d.max_threads_per_sm) / warp / warps_per_block;
  o.limit_registers = registers_limit(d, *granularity, k.registers_per_thread, warps_per_block);
  const std::uint64_t used = k.static_shared_bytes + l.dynamic_shared_bytes;
  o.shared_bytes_per_block_allocated =
    round_up(used + d.reserved_shared_bytes_per_block, static_cast<std::uint64_t>(granularity->shared_unit_bytes));
  // The calculator's rule: a configuration smaller than one block's allocation is never used (the
  // driver raises the carveout to fit a block).
  const std::uint64_t per_sm = std::max(l.shared_config_bytes_per_sm.value_or(d.shared_bytes_per_sm),
                                        std::min(o.shared_bytes_per_block_allocated, d.shared_bytes_per_sm));
  o.limit_shared_mem = shared_limit(d, per_sm, o.shared_bytes_per_block_allocated, used);

  o.active_blocks_per_sm = std::min({o.limit_blocks, o.limit_warps, o.limit_registers, o.limit_shared_mem});
  // Nsight Compute's definition: the grid over what the whole GPU holds at once. No block fits: 0.
  o.waves_per_sm = o.active_blocks_per_sm == 0
                     ? 0.0
                     : static_cast<double>(l.grid_blocks) /
                         static_cast<double>(o.active_blocks_per_sm * static_cast<std::uint64_t>(d.sm_count));
  return o;
}

std::vector<std::pair<std::string, double>> nsight_values(const launch_occupancy& o) {
  const double values[] = {
    static_cast<double>(o.limit_registers),   static_cast<double>(o.limit_shared_mem),
    static_cast<double>(o.limit_warps),       static_cast<double>(o.limit_blocks),
    static_cast<double>(o.registers_per_thread), static_cast<double>(o.static_shared_bytes),
    static_cast<double>(o.dynamic_shared_bytes), static_cast<double>(o.grid_size),
    static_cast<double>(o.block_size),        o.waves_per_sm,
  };
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t i = 0; i < launch_attribute_names.size(); ++i)
    out.emplace_back(launch_attribute_names[i], values[i]);
  return out;
}

bool is_launch_attribute(const std::string& name) {
  return std::find(launch_attribute_names.begin(), launch_attribute_names.end(), name) != launch_attribute_names.end();
}

} // namespace warpforge::gpu
