#pragma once
// Exit codes of every `warpforge` command (documented in README.md, "Exit codes").

namespace warpforge::cli {

enum class exit_code : int {
  ok = 0,               // did what was asked
  failure = 1,          // ran, and it failed (a campaign failed, a socket broke, ...)
  usage = 2,            // bad command line
  bad_input = 3,        // a spec, file or run directory is malformed or missing
  not_available = 4,    // the capability is not in this build yet
  no_gpu = 5,           // a GPU was required (--require-gpu) and none is usable
  interrupted = 130,    // stopped by SIGINT/SIGTERM; what was recorded is kept
};

inline int to_int(exit_code code) { return static_cast<int>(code); }

} // namespace warpforge::cli
