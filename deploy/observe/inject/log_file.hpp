#pragma once
// The launch log file the library writes (format: deploy/observe/launches/launch_log.hpp). Lines are
// written whole under a mutex (the CUPTI buffer thread and the exit path both write) and flushed
// after each activity buffer, so a crash loses at most the buffer in flight.
//
// The file is created exclusively: when $WARPFORGE_OBSERVE_OUT already exists (a second CUDA
// process of the same observed program, e.g. a child), this process writes
// "<path>.<pid>" instead, so two processes never interleave one file.

#include "deploy/observe/launches/launch_record.hpp"

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace warpforge::observe::inject {

class log_file {
public:
  /// Creates the file (see above). On failure returns why ("open /x: Permission denied").
  std::string open(const std::string& path);
  bool is_open() const;
  /// The path actually written.
  const std::string& path() const { return path_; }

  void write_launch(const launch_record& record);
  void flush();
  /// Writes the end line and closes the file; later writes are ignored.
  void write_end(std::uint64_t dropped, const std::vector<std::string>& notes);

private:
  mutable std::mutex mutex_;
  std::FILE* file_ = nullptr;
  std::string path_;
  std::uint64_t launches_written_ = 0;
};

/// One launch as its JSON line (no newline).
std::string launch_line(const launch_record& record);

} // namespace warpforge::observe::inject
