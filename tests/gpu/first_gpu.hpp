#pragma once
// The GPU the gpu-labelled tests run on: the first device a fresh warpforge-runner reports, or
// why there is none (the reason those tests give as they skip).
//
//   auto gpu = test::first_gpu();
//   if (!gpu) GTEST_SKIP() << gpu.error();

#include "foundation/expected/expected.hpp"
#include "gpu/runner/runner_client.hpp"
#include "tests/gpu/test_paths.hpp"

#include <string>

namespace warpforge::gpu::test {

inline expected<device_info, std::string> first_gpu() {
  runner_options options;
  options.executable = runner_path();
  auto runner = runner_client::start(options);
  if (!runner)
    return unexpected(runner.error().to_string());
  auto report = runner->device_query(gpu::device_query_depth::full);
  if (!report)
    return unexpected(report.error().to_string());
  if (report->status != gpu_status::ok || report->devices.empty())
    return unexpected(report->reason);
  return report->devices[0];
}

} // namespace warpforge::gpu::test
