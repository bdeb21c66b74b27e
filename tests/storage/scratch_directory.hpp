#pragma once
// A fresh, empty folder per test, removed (with its contents) when the test ends.

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace warpforge::storage::testing {

class scratch_directory {
public:
  scratch_directory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "warpforge-storage-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  scratch_directory(const scratch_directory&) = delete;
  scratch_directory& operator=(const scratch_directory&) = delete;
  ~scratch_directory() {
    std::error_code ignored; // a test that chmod-ed a folder restores it; removal is best effort
    std::filesystem::remove_all(path_, ignored);
  }

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
  std::filesystem::path path_;
};

} // namespace warpforge::storage::testing
