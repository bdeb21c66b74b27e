// Needs a GPU (ctest -L gpu). Asks the real warpforge-runner, as the coordinator will.
#include "gpu/runner/runner_client.hpp"
#include "tests/gpu/test_paths.hpp"

#include <gtest/gtest.h>

#include <iostream>

using namespace warpforge::gpu;

TEST(gpu_device, the_runner_reports_every_visible_gpu_with_plausible_values) {
  runner_options options;
  options.executable = test::runner_path();
  auto runner = runner_client::start(options);
  ASSERT_TRUE(runner) << runner.error().to_string();
  auto report = runner->device_query(device_query_depth::full);
  ASSERT_TRUE(report) << report.error().to_string();
  if (report->status != gpu_status::ok)
    GTEST_SKIP() << "no usable GPU (" << to_string(report->status) << "): " << report->reason;

  constexpr int oldest_supported_sm_major = 7; // Volta
  EXPECT_GT(report->driver_version, 0);
  ASSERT_GE(report->device_count, 1);
  ASSERT_EQ(report->devices.size(), static_cast<std::size_t>(report->device_count));
  for (const auto& d : report->devices) {
    SCOPED_TRACE(d.name + " [" + std::to_string(d.ordinal) + "]");
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.sm_major, oldest_supported_sm_major);
    EXPECT_GT(d.memory_bytes, 0u);
    EXPECT_GT(d.sm_count, 0);
    EXPECT_GT(d.l2_bytes, 0u);
    EXPECT_GT(d.shared_memory_per_block_optin_bytes, 0u);
    EXPECT_GT(d.registers_per_sm, 0);
    EXPECT_GT(d.max_threads_per_sm, 0);
    EXPECT_EQ(d.uuid.rfind("GPU-", 0), 0u) << d.uuid;
    EXPECT_FALSE(d.pci_bus_id.empty());
    EXPECT_FALSE(d.counter_reason.empty());
    // Clocks are either known or explained.
    if (d.sm_clock_khz == 0 || d.memory_clock_khz == 0) {
      EXPECT_FALSE(d.notes.empty());
    }
  }
  std::cout << to_text(*report);
  EXPECT_EQ(runner->stop().exit_code, 0);
}
