#pragma once
// What a run recorded, read back for printing: the events of the run directory's store, each
// with its detail fields. bench and diagnose print their tables from this, so what they show is
// exactly what was recorded.

#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace warpforge::cli {

struct recorded_event {
  std::string type;
  std::int64_t iteration = -1;
  std::int64_t branch = -1;
  int gpu = -1;
  std::map<std::string, double> numbers;      // numeric (and boolean: 0/1) detail fields (the
                                              // envelope's fields are the members above)
  std::map<std::string, std::string> texts;   // string detail fields

  double number(const std::string& key, double otherwise = 0) const;
  std::string text(const std::string& key) const;
};

/// Every event of `run_dir`'s store, in seq order; the error names the file.
expected<std::vector<recorded_event>, std::string> read_events(const std::filesystem::path& run_dir);

} // namespace warpforge::cli
