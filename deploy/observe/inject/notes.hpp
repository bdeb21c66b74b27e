#pragma once
// Notes for the launch log's end line: every CUPTI or driver error and every piece of information
// that was unavailable becomes a note instead of a crash. A note repeated per launch is kept once
// with its count, so a failing call cannot flood the log.

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace warpforge::observe::inject {

class note_list {
public:
  void add(const std::string& text);
  /// Each distinct note once, in first-seen order, "text (N times)" when repeated.
  std::vector<std::string> summary() const;

private:
  mutable std::mutex mutex_;
  std::vector<std::string> order_;
  std::map<std::string, std::uint64_t> counts_;
};

} // namespace warpforge::observe::inject
