#pragma once
// CUPTI's kernel activity records (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: device, geometry,
// start/end timestamps, correlation id) joined with the launches the callbacks recorded, and
// written to the launch log. CUPTI hands records over in buffers on its own thread; each buffer
// is written and flushed whole.

#include <cstdint>

namespace warpforge::observe::inject {

/// Registers the buffer callbacks and enables kernel activity. Failures become notes; returns
/// whether kernel activity is being recorded.
bool enable_kernel_activity();

/// At exit: forces CUPTI to hand over every buffer (incomplete records included) and joins them.
void flush_kernel_activity();

} // namespace warpforge::observe::inject
