// The entry point CUDA calls when CUDA_INJECTION64_PATH names this library (at cuInit), and the
// exit path that completes the launch log. README.md walks the whole flow.
//
//   WARPFORGE_OBSERVE_OUT=<file>      required: where the launch log goes
//   WARPFORGE_OBSERVE_KERNEL=<name>   optional: only launches of this kernel (matches_kernel)
//   WARPFORGE_OBSERVE_BUFFERS=<name>  optional: record this kernel's buffers, hash its first
//                                     launches' bytes (buffer_watch.hpp; `warpforge init`)
//   WARPFORGE_OBSERVE_HASH_LAUNCHES=<n>, WARPFORGE_OBSERVE_HASH_BYTES=<bytes>: that hash budget
//
// The buffer watch is the only exception to "no synchronisation of its own": it synchronises
// around the watched kernel's first launches, so it is off unless asked for.
//
// Nothing here may take the observed program down: every failure is a note in the log's end line
// (or, before the log is open, one line on stderr), and the program runs on unobserved. Device
// state (clocks, limits, caches) is never touched.

#include "deploy/observe/inject/activity_join.hpp"
#include "deploy/observe/inject/byte_hash.hpp"
#include "deploy/observe/inject/launch_capture.hpp"
#include "deploy/observe/inject/observer.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace warpforge::observe::inject {

observer& the_observer() {
  static observer* const instance = new observer(); // never destroyed: see observer.hpp
  return *instance;
}

namespace {

std::atomic<bool> initialized{false};

/// A non-negative integer from the environment, else `fallback` (unset, or not a number: a note).
std::uint64_t number_from_env(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || text[0] == '-') {
    the_observer().notes.add(std::string(name) + "=" + text + " is not a non-negative integer: " +
                             std::to_string(fallback) + " used");
    return fallback;
  }
  return value;
}

/// Completes the log once: hands over every activity buffer, counts the launches that never
/// got a kernel record, writes the end line. Runs from atexit and from the library's destructor,
/// whichever comes first.
void finish() {
  observer& self = the_observer();
  if (!self.log.is_open() || self.finished.exchange(true)) return;
  flush_kernel_activity();
  if (std::size_t waiting = self.launches.waiting(); waiting > 0) {
    self.dropped += waiting;
    self.notes.add(std::to_string(waiting) + " launches got no kernel record before exit");
  }
  self.log.write_end(self.dropped.load(), self.notes.summary());
}

void finish_at_exit() { finish(); }

__attribute__((destructor)) void finish_at_unload() { finish(); }

void start() {
  observer& self = the_observer();
  const char* out = std::getenv("WARPFORGE_OBSERVE_OUT");
  if (!out || !*out) {
    std::fprintf(stderr, "warpforge observe: WARPFORGE_OBSERVE_OUT is not set; launches are not recorded\n");
    return;
  }
  if (std::string error = self.log.open(out); !error.empty()) {
    std::fprintf(stderr, "warpforge observe: cannot write the launch log (%s); launches are not recorded\n",
                 error.c_str());
    return;
  }
  if (const char* kernel = std::getenv("WARPFORGE_OBSERVE_KERNEL")) self.kernel_filter = kernel;
  if (const char* kernel = std::getenv("WARPFORGE_OBSERVE_BUFFERS")) self.buffers_kernel = kernel;
  self.hash_launches = static_cast<std::uint32_t>(number_from_env("WARPFORGE_OBSERVE_HASH_LAUNCHES", default_hash_launches));
  self.hash_bytes_per_launch = number_from_env("WARPFORGE_OBSERVE_HASH_BYTES", default_hash_bytes_per_launch);
  std::atexit(finish_at_exit);
  // Activity first: a launch whose kernel record could not be collected is worth less.
  if (enable_kernel_activity()) subscribe_launch_callbacks();
}

} // namespace
} // namespace warpforge::observe::inject

/// Called by the CUDA driver once, when it loads the library named by CUDA_INJECTION64_PATH.
/// Returns 1 (success) even when observation could not start: the program must run regardless.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  if (!warpforge::observe::inject::initialized.exchange(true)) warpforge::observe::inject::start();
  return 1;
}
