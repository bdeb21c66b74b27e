#include "deploy/observe/inject/activity_join.hpp"

#include "deploy/observe/inject/cupti_note.hpp"
#include "deploy/observe/inject/demangle.hpp"
#include "deploy/observe/inject/observer.hpp"

#include <cupti.h>

#include <cstdlib>
#include <string>

namespace warpforge::observe::inject {
namespace {

/// CUPTI's buffers: 8 MiB holds ~40,000 kernel records; the alignment CUPTI requires.
constexpr std::size_t activity_buffer_bytes = std::size_t{8} << 20;
constexpr std::size_t activity_buffer_alignment = 8;

void CUPTIAPI on_buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(activity_buffer_alignment, activity_buffer_bytes));
  *size = *buffer ? activity_buffer_bytes : 0;
  *max_records = 0;
  if (!*buffer) the_observer().notes.add("out of memory for a CUPTI activity buffer: launches dropped");
}

/// The launch log's record of one kernel execution: the activity record's facts, the launch
/// callback's symbol and parameters where one saw it.
launch_record record_of(const CUpti_ActivityKernel10& kernel) {
  observer& self = the_observer();
  launch_record record;
  record.grid = {static_cast<std::uint32_t>(kernel.gridX), static_cast<std::uint32_t>(kernel.gridY),
                 static_cast<std::uint32_t>(kernel.gridZ)};
  record.block = {static_cast<std::uint32_t>(kernel.blockX), static_cast<std::uint32_t>(kernel.blockY),
                  static_cast<std::uint32_t>(kernel.blockZ)};
  record.dynamic_smem = static_cast<std::uint32_t>(kernel.dynamicSharedMemory);
  record.device = kernel.deviceId;
  // Records may have no timestamps ("no timing information ... for lack of device memory").
  if (kernel.start != 0 && kernel.end > kernel.start)
    record.duration_s = static_cast<double>(kernel.end - kernel.start) * 1e-9;
  else
    self.notes.add("kernel records without timestamps: duration unknown (0)");

  std::optional<pending_launch> launch = self.launches.take(kernel.correlationId);
  if (!launch) {
    self.notes.add("kernels no launch callback saw (e.g. CUDA graphs): scalar values unavailable, "
                   "sequence is completion order");
    record.sequence = self.launches.next_sequence();
  } else {
    record.sequence = launch->sequence;
    record.kernel = std::move(launch->kernel);
    record.params = std::move(launch->params);
    record.buffers = std::move(launch->buffers);
    if (launch->source == params_source::none)
      self.notes.add("runtime launches without a driver callback: scalar values unavailable");
    bool geometry_agrees = launch->runtime_geometry ==
        std::array<std::uint32_t, 6>{record.grid[0], record.grid[1], record.grid[2],
                                     record.block[0], record.block[1], record.block[2]};
    if (launch->source == params_source::runtime_kernel && !geometry_agrees) {
      self.notes.add("__cudaLaunchKernel arguments disagreed with the kernel record: scalar values dropped");
      record.params.clear();
    } else if (launch->source == params_source::runtime_kernel) {
      self.notes.add("runtime launches without a driver callback: scalar values read through "
                     "__cudaLaunchKernel's CUkernel");
    }
  }
  if (record.kernel.empty() && kernel.name) record.kernel = kernel.name;
  record.demangled = demangle(record.kernel);
  return record;
}

void CUPTIAPI on_buffer_completed(CUcontext /*context*/, std::uint32_t /*stream*/, std::uint8_t* buffer,
                                  std::size_t /*size*/, std::size_t valid_size) {
  observer& self = the_observer();
  CUpti_Activity* activity = nullptr;
  while (buffer && valid_size > 0) {
    CUptiResult next = cuptiActivityGetNextRecord(buffer, valid_size, &activity);
    if (next == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
    if (next == CUPTI_ERROR_INVALID_KIND) { // CUPTI cannot step past an incomplete record
      self.notes.add("an incomplete kernel record (a kernel still running at exit?): the rest of "
                     "its activity buffer is lost");
      break;
    }
    if (!cupti_ok(next, "cuptiActivityGetNextRecord")) break;
    if (activity->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && activity->kind != CUPTI_ACTIVITY_KIND_KERNEL)
      continue;
    launch_record record = record_of(*reinterpret_cast<const CUpti_ActivityKernel10*>(activity));
    if (matches_kernel(record, self.kernel_filter)) self.log.write_launch(record);
  }
  self.log.flush();
  std::size_t dropped = 0;
  if (cupti_ok(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped), "cuptiActivityGetNumDroppedRecords") &&
      dropped > 0) {
    self.dropped += dropped;
    self.notes.add("CUPTI dropped kernel records (its buffers were full)");
  }
  std::free(buffer);
}

} // namespace

bool enable_kernel_activity() {
  if (!cupti_ok(cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed),
                "cuptiActivityRegisterCallbacks"))
    return false;
  return cupti_ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                  "cuptiActivityEnable(CONCURRENT_KERNEL)");
}

void flush_kernel_activity() {
  cupti_ok(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
}

} // namespace warpforge::observe::inject
