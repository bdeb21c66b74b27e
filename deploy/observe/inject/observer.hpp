#pragma once
// The injection library's one piece of state, shared by the CUPTI callbacks (launch_capture),
// the activity buffer callbacks (activity_join) and the start/stop path (injection.cpp).
// Created once in InitializeInjection and never destroyed: CUPTI may call back during process
// teardown, after static destructors would have run.

#include "deploy/observe/inject/launch_table.hpp"
#include "deploy/observe/inject/log_file.hpp"
#include "deploy/observe/inject/notes.hpp"

#include <atomic>
#include <cstdint>
#include <string>

namespace warpforge::observe::inject {

struct observer {
  log_file log;             // $WARPFORGE_OBSERVE_OUT
  note_list notes;            // what went wrong or was unavailable; the end line lists them
  launch_table launches;    // launches seen by the callbacks, waiting for their activity record
  std::string kernel_filter; // $WARPFORGE_OBSERVE_KERNEL; "" = every kernel (matches_kernel rule)
  std::string buffers_kernel; // $WARPFORGE_OBSERVE_BUFFERS: the kernel whose buffers are recorded
                              // and hashed (buffer_watch.hpp); "" = none
  std::uint32_t hash_launches = 2;              // $WARPFORGE_OBSERVE_HASH_LAUNCHES: launches hashed
  std::uint64_t hash_bytes_per_launch = 1ull << 30; // $WARPFORGE_OBSERVE_HASH_BYTES: bytes a launch
  std::atomic<std::uint64_t> dropped{0};  // CUPTI's dropped records + launches never completed
  std::atomic<bool> finished{false};      // the end line is written; nothing more is recorded
};

/// The process's observer (created on first use, never destroyed).
observer& the_observer();

} // namespace warpforge::observe::inject
