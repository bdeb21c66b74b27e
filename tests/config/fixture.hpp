#pragma once
// Shared by the config tests: where the fixtures are, and finding one error among many.

#include "config/toml_reader/placed_error.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace warpforge::config::testing {

inline std::filesystem::path fixture(std::string_view name) {
  return std::filesystem::path{WARPFORGE_SOURCE_DIR} / "tests" / "config" / "fixtures" / name;
}

inline std::filesystem::path example(std::string_view relative) {
  return std::filesystem::path{WARPFORGE_SOURCE_DIR} / "examples" / relative;
}

/// The first error whose key is `key`, or nullptr.
inline const toml_reader::placed_error* find_error(const toml_reader::placed_errors& errors,
                                                   std::string_view key) {
  for (const auto& error : errors)
    if (error.key == key)
      return &error;
  return nullptr;
}

/// Asserts that `errors` holds an error at `key`, in `file`, on `line`, whose message contains
/// `message_part`; returns it (nullptr after a failed assertion).
inline const toml_reader::placed_error* expect_error(const toml_reader::placed_errors& errors,
                                                     const std::filesystem::path& file,
                                                     std::string_view key, std::uint32_t line,
                                                     std::string_view message_part) {
  const toml_reader::placed_error* error = find_error(errors, key);
  EXPECT_NE(error, nullptr) << "no error with key '" << key << "' among:\n" << to_string(errors);
  if (error == nullptr)
    return nullptr;
  EXPECT_EQ(error->file, file.string());
  EXPECT_EQ(error->line, line) << to_string(*error);
  EXPECT_NE(error->message.find(message_part), std::string::npos) << to_string(*error);
  EXPECT_NE(to_string(*error).find(std::string{key}), std::string::npos);
  return error;
}

} // namespace warpforge::config::testing
