#include "calibrate/engine/run_files.hpp"

#include <fstream>
#include <sstream>
#include <system_error>

namespace warpforge::calibrate {

namespace fs = std::filesystem;

expected<void, std::string> write_file_atomically(const fs::path& path, std::string_view text) {
  std::error_code ec;
  if (path.has_parent_path())
    fs::create_directories(path.parent_path(), ec);
  if (ec)
    return unexpected{"cannot create " + path.parent_path().string() + ": " + ec.message()};
  const fs::path partial = path.string() + ".partial";
  {
    std::ofstream out{partial, std::ios::binary | std::ios::trunc};
    out << text;
    out.close();
    if (!out)
      return unexpected{"cannot write " + partial.string()};
  }
  fs::rename(partial, path, ec);
  if (ec)
    return unexpected{"cannot rename " + partial.string() + " to " + path.filename().string() + ": " + ec.message()};
  return {};
}

std::optional<std::string> read_whole_file(const fs::path& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

} // namespace warpforge::calibrate
