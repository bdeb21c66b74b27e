#pragma once
// Shared by the sass tests: the real dumps in tests/fixtures/sass/ (README there says how they
// were made), and a private temporary folder for stand-in tools and data files.

#include "sass/disassembly.hpp"
#include "sass/parser.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <sys/stat.h>

namespace warpforge::sass::test {

/// Every CUBIN in the fixtures, by file stem; each has a .nvdisasm.sass and a .cuobjdump.sass.
inline constexpr std::array<std::string_view, 6> fixture_stems{
    "signatures.sm_90a",         "vector_add.sm_90",          "transpose_naive.sm_90",
    "transpose_tiled.sm_90",     "row_reduction_smem.sm_90",  "row_reduction_shuffle.sm_90"};

inline std::filesystem::path fixture_dir() {
  return std::filesystem::path{WARPFORGE_SOURCE_DIR} / "tests" / "fixtures" / "sass";
}

/// "<stem>.nvdisasm.sass" or "<stem>.cuobjdump.sass".
inline std::filesystem::path dump_path(std::string_view stem, sass_format format) {
  return fixture_dir() / (std::string{stem} + "." + std::string{to_string(format)} + ".sass");
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return std::move(content).str();
}

/// The fixture dump, parsed; a parse failure fails the calling test.
inline disassembly load_dump(std::string_view stem, sass_format format) {
  auto parsed = parse_sass(read_file(dump_path(stem, format)), format);
  if (!parsed) {
    ADD_FAILURE() << dump_path(stem, format) << ": " << parsed.error().to_string();
    return {};
  }
  return std::move(*parsed);
}

/// A fresh folder under the system temporary directory, removed with the object.
class temp_dir {
public:
  temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "sass-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

  /// Writes `content` to `name` in the folder; `executable` sets mode 0755.
  std::filesystem::path write(std::string_view name, std::string_view content,
                              bool executable = false) const {
    const auto file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
    if (executable)
      ::chmod(file.c_str(), 0755);
    return file;
  }

private:
  std::filesystem::path path_;
};

} // namespace warpforge::sass::test
