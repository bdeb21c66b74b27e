#include "foundation/logging/logging.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace warpforge::logging {
namespace {

TEST(Logging, LevelNamesParseAndUnknownNamesAreRejected) {
  EXPECT_EQ(level_from_string("debug"), spdlog::level::debug);
  EXPECT_EQ(level_from_string("warn"), spdlog::level::warn);
  EXPECT_FALSE(level_from_string("loud").has_value());
}

TEST(Logging, NamedLoggersWriteToTheRunDirectoryFileAtTheConfiguredLevel) {
  auto dir = std::filesystem::temp_directory_path() / ("wf-log-" + std::to_string(::getpid()));
  auto file = dir / "logs" / "warpforge.log";
  ASSERT_TRUE(add_file_sink(file));
  set_level(spdlog::level::info);
  get("store")->debug("hidden detail");
  get("store")->info("opened database");
  get("gpu.0")->warn("runner restarted");
  shutdown();
  std::ifstream in{file};
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("[store] opened database"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("[gpu.0] runner restarted"), std::string::npos);
  EXPECT_EQ(text.str().find("hidden detail"), std::string::npos);
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace warpforge::logging
