#pragma once
// Where a runner request's wall time went, phase by phase, as text for its note and the runner's
// log line: "set-up 0.000 s, kernel and inputs 0.121 s, ..." (profiles, the warm-up and races
// say it the same way; the fleet's numbers come from these lines).
//
//   phase_clock clock;
//   load();   clock.mark("modules");
//   check();  clock.mark("checks");
//   result.notes.push_back("time: " + clock.text());

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

namespace warpforge::gpu {

class phase_clock {
public:
  /// The time since the last mark (or the clock's start) is `phase`'s.
  void mark(std::string_view phase) {
    const auto now = std::chrono::steady_clock::now();
    if (!text_.empty())
      text_ += ", ";
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, " %.3f s", std::chrono::duration<double>(now - last_).count());
    text_ += std::string{phase} + seconds;
    last_ = now;
  }
  const std::string& text() const { return text_; }

private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::string text_;
};

} // namespace warpforge::gpu
