#include "foundation/files/atomic_write.hpp"

#include <atomic>
#include <fstream>
#include <unistd.h>

namespace warpforge::files {

namespace fs = std::filesystem;

namespace {

// "<name>.partial-<pid>-<n>": unique per process and call.
fs::path temporary_beside(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  auto temp = path;
  temp += ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  return temp;
}

} // namespace

expected<void, std::string> write_file_atomically(const fs::path& path, std::string_view text) {
  std::error_code ec;
  if (path.has_parent_path())
    fs::create_directories(path.parent_path(), ec);
  if (ec)
    return unexpected{"create " + path.parent_path().string() + ": " + ec.message()};
  const auto temp = temporary_beside(path);
  {
    std::ofstream out{temp, std::ios::binary | std::ios::trunc};
    out << text;
    out.close();
    if (!out) {
      fs::remove(temp, ec);
      return unexpected{"write " + temp.string() + ": failed"};
    }
  }
  fs::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    return unexpected{"rename " + temp.string() + " to " + path.string() + ": " + ec.message()};
  }
  return {};
}

} // namespace warpforge::files
