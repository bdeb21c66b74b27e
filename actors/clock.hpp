#pragma once
// Wall-clock time as the store and the feed record it.

#include <chrono>

namespace warpforge::actors {

/// Seconds since the unix epoch, with fractions.
inline double unix_now_s() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

} // namespace warpforge::actors
