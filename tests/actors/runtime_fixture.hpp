#pragma once
// A fresh folder per test and the runtime's options for it (store in warpforge.db, feed on a free
// loopback port, restarts after 1-10 ms): shared by the runtime and feed actor tests.

#include "actors/runtime.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

namespace warpforge::actors::testing {

class runtime_fixture : public ::testing::Test {
protected:
  std::filesystem::path dir;

  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("wf-" + std::string{::testing::UnitTest::GetInstance()->current_test_suite()->name()} + "-" +
           std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  runtime_options options() {
    runtime_options o;
    o.database = dir / "warpforge.db";
    o.feed.publisher.endpoint = "tcp://127.0.0.1:*";
    o.feed.campaign = "nightly";
    o.feed.endpoint_file = dir / "feed.endpoint";
    o.supervision.backoff_initial_ms = 1;
    o.supervision.backoff_max_ms = 10;
    return o;
  }
};

} // namespace warpforge::actors::testing
