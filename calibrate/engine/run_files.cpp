#include "calibrate/engine/run_files.hpp"

#include <fstream>
#include <sstream>
#include <system_error>

namespace warpforge::calibrate {

namespace fs = std::filesystem;

std::optional<std::string> read_whole_file(const fs::path& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

} // namespace warpforge::calibrate
