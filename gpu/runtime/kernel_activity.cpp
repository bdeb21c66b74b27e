#include "gpu/runtime/kernel_activity.hpp"

#include "gpu/runtime/cuda_call.hpp"

#include <cupti_activity.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>

namespace warpforge::gpu {

namespace {

constexpr std::size_t activity_buffer_bytes = 1 << 20; // one launch's record needs a few hundred
constexpr std::size_t activity_buffer_alignment = 8;   // CUPTI's requirement for record buffers

// What the buffer callback found; the callbacks are plain C functions, so this is the process's.
// `recording` keeps one measurement at a time; the callback may run on a thread of CUPTI's (or in
// the flush, under `recording`), so what it writes is atomic rather than under the lock.
std::mutex recording;
constexpr std::int64_t no_record = -1;
std::atomic<std::int64_t> recorded_shared_bytes{no_record};
std::atomic<std::size_t> recorded_kernels{0};

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(activity_buffer_alignment, activity_buffer_bytes));
  *size = *buffer != nullptr ? activity_buffer_bytes : 0;
  *max_records = 0; // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      // CUPTI 13's kernel record; later versions only append fields.
      const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      recorded_shared_bytes.store(kernel->sharedMemoryExecuted);
      recorded_kernels.fetch_add(1);
    }
  std::free(buffer);
}

call_result register_callbacks_once() {
  static std::once_flag once;
  static call_result registered;
  std::call_once(once, [] {
    registered = WARPFORGE_GPU_CALL(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  });
  return registered;
}

} // namespace

expected<std::uint64_t, std::string> driver_shared_memory_config(const std::function<call_result()>& launch) {
  std::lock_guard lock{recording};
  if (auto r = register_callbacks_once(); !r)
    return unexpected("registering activity buffers: " + r.error().to_string());
  recorded_shared_bytes.store(no_record);
  recorded_kernels.store(0);
  if (auto r = WARPFORGE_GPU_CALL(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)); !r)
    return unexpected("enabling kernel activity records: " + r.error().to_string());
  auto launched = launch();
  (void)WARPFORGE_GPU_CALL(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  auto flushed = WARPFORGE_GPU_CALL(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  if (!launched)
    return unexpected("the launch: " + launched.error().to_string());
  if (!flushed)
    return unexpected("flushing kernel activity records: " + flushed.error().to_string());
  const auto kernels = recorded_kernels.load();
  const auto shared_bytes = recorded_shared_bytes.load();
  if (kernels != 1 || shared_bytes == no_record)
    return unexpected("expected one kernel activity record for the launch, got " + std::to_string(kernels));
  return static_cast<std::uint64_t>(shared_bytes);
}

} // namespace warpforge::gpu
