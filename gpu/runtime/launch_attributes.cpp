#include "gpu/runtime/launch_attributes.hpp"

#include "gpu/runtime/cuda_call.hpp"
#include "gpu/runtime/driver_api.hpp"

namespace warpforge::gpu {

namespace {

constexpr int device_ordinal = 0; // the runner's device

expected<int, std::string> attribute(cudaDeviceAttr which, const char* name) {
  int value = 0;
  if (auto r = WARPFORGE_GPU_CALL(cudaDeviceGetAttribute(&value, which, device_ordinal)); !r)
    return unexpected(std::string{name} + ": " + r.error().to_string());
  return value;
}

expected<int, std::string> function_attribute(const loaded_kernel& k, CUfunction_attribute which, const char* name) {
  int value = 0;
  if (auto r = WARPFORGE_GPU_CALL(k.api->func_get_attribute(&value, which, k.function)); !r)
    return unexpected(std::string{name} + ": " + r.error().to_string());
  return value;
}

} // namespace

expected<launch_attributes, std::string> read_launch_attributes(const loaded_kernel& k,
                                                                std::optional<std::uint64_t> shared_config_bytes) {
  occupancy_device d;
  const struct {
    cudaDeviceAttr which;
    const char* name;
    int* into;
  } ints[] = {
    {cudaDevAttrComputeCapabilityMajor, "compute capability major", &d.compute_major},
    {cudaDevAttrComputeCapabilityMinor, "compute capability minor", &d.compute_minor},
    {cudaDevAttrWarpSize, "warp size", &d.warp_size},
    {cudaDevAttrMultiProcessorCount, "SM count", &d.sm_count},
    {cudaDevAttrMaxThreadsPerBlock, "threads per block", &d.max_threads_per_block},
    {cudaDevAttrMaxThreadsPerMultiProcessor, "threads per SM", &d.max_threads_per_sm},
    {cudaDevAttrMaxBlocksPerMultiprocessor, "blocks per SM", &d.max_blocks_per_sm},
    {cudaDevAttrMaxRegistersPerMultiprocessor, "registers per SM", &d.registers_per_sm},
    {cudaDevAttrMaxRegistersPerBlock, "registers per block", &d.registers_per_block},
  };
  for (const auto& a : ints) {
    auto v = attribute(a.which, a.name);
    if (!v)
      return unexpected(v.error());
    *a.into = *v;
  }
  const struct {
    cudaDeviceAttr which;
    const char* name;
    std::uint64_t* into;
  } sizes[] = {
    {cudaDevAttrMaxSharedMemoryPerMultiprocessor, "shared memory per SM", &d.shared_bytes_per_sm},
    {cudaDevAttrMaxSharedMemoryPerBlock, "shared memory per block", &d.shared_bytes_per_block},
    {cudaDevAttrMaxSharedMemoryPerBlockOptin, "opt-in shared memory per block", &d.shared_bytes_per_block_optin},
    {cudaDevAttrReservedSharedMemoryPerBlock, "reserved shared memory per block", &d.reserved_shared_bytes_per_block},
  };
  for (const auto& a : sizes) {
    auto v = attribute(a.which, a.name);
    if (!v)
      return unexpected(v.error());
    *a.into = static_cast<std::uint64_t>(*v);
  }

  occupancy_kernel kernel;
  auto registers = function_attribute(k, CU_FUNC_ATTRIBUTE_NUM_REGS, "registers per thread");
  if (!registers)
    return unexpected(registers.error());
  auto static_shared = function_attribute(k, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "static shared memory");
  if (!static_shared)
    return unexpected(static_shared.error());
  kernel.registers_per_thread = *registers;
  kernel.static_shared_bytes = static_cast<std::uint64_t>(*static_shared);

  const auto& g = k.launch.launch;
  occupancy_launch launch;
  launch.grid_blocks = std::uint64_t{g.grid[0]} * g.grid[1] * g.grid[2];
  launch.block_threads = std::uint64_t{g.block[0]} * g.block[1] * g.block[2];
  launch.dynamic_shared_bytes = g.dynamic_smem_bytes;
  launch.shared_config_bytes_per_sm = shared_config_bytes;

  auto occupancy = compute_launch_occupancy(d, kernel, launch);
  if (!occupancy)
    return unexpected(occupancy.error());
  launch_attributes out;
  out.occupancy = *occupancy;
  if (auto r = WARPFORGE_GPU_CALL(k.api->occupancy_max_active_blocks(&out.driver_active_blocks_per_sm, k.function,
                                                                     static_cast<int>(launch.block_threads),
                                                                     launch.dynamic_shared_bytes));
      !r)
    return unexpected("the driver's occupancy: " + r.error().to_string());
  // The driver's answer assumes the maximum carveout; the launch's own may only lower the
  // shared-memory limit where it does not bind, so the totals agree.
  if (static_cast<std::uint64_t>(out.driver_active_blocks_per_sm) != out.occupancy.active_blocks_per_sm)
    out.note = "launch attributes: the occupancy calculator's " + std::to_string(out.occupancy.active_blocks_per_sm) +
               " blocks per SM differ from the driver's " + std::to_string(out.driver_active_blocks_per_sm) +
               " (cuOccupancyMaxActiveBlocksPerMultiprocessor)";
  return out;
}

} // namespace warpforge::gpu
