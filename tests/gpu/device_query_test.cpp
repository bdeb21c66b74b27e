#include "gpu/runtime/device_query.hpp"

#include <gtest/gtest.h>

using namespace warpforge::gpu;

TEST(device_query, device_count_errors_map_to_host_statuses) {
  EXPECT_EQ(classify_device_count_error(cudaErrorInsufficientDriver), gpu_status::no_driver);
  EXPECT_EQ(classify_device_count_error(cudaErrorStubLibrary), gpu_status::no_driver);
  EXPECT_EQ(classify_device_count_error(cudaErrorNoDevice), gpu_status::no_device);
  EXPECT_EQ(classify_device_count_error(cudaErrorUnknown), gpu_status::error);
}

TEST(device_query, the_host_report_is_consistent_with_or_without_a_gpu) {
  phase_clock clock;
  auto report = query_host(device_query_depth::full, clock);
  EXPECT_GE(report.runtime_version, 13000);
  EXPECT_EQ(clock.text().rfind("driver ", 0), 0u) << clock.text();
  EXPECT_GT(report.cupti_version, 0u);
  if (report.status == gpu_status::ok) {
    EXPECT_GE(report.device_count, 1);
    EXPECT_EQ(report.devices.size(), static_cast<std::size_t>(report.device_count));
    EXPECT_NE(clock.text().find("device " + std::to_string(report.device_count - 1) + " "), std::string::npos)
      << "each device's time is marked: " << clock.text();
  } else {
    EXPECT_FALSE(report.reason.empty());
    EXPECT_TRUE(report.devices.empty());
    EXPECT_NE(report.reason.find("cudaGetDeviceCount"), std::string::npos) << report.reason;
  }
}
