#include "gpu/runtime/execute.hpp"

#include "gpu/runner/exit_codes.hpp"
#include "gpu/runtime/single_launch.hpp"
#include "foundation/logging/logging.hpp"

#include <fstream>
#include <iterator>

namespace warpforge::gpu {

expected<void, std::string> launch_first_kernel_once(const race_request& request) {
  if (request.kernels.empty() || request.seeds.empty())
    return unexpected(std::string{"execute: the request needs a kernel and a seed"});
  double setup_s = 0.0;
  auto workspace = device_workspace::get(setup_s);
  if (!workspace)
    return unexpected(workspace.error());
  single_launch one;
  auto describe = [](const launch_failure& f) { return std::string{to_string(f.outcome)} + ": " + f.detail; };
  if (auto f = prepare_single_launch(**workspace, request, one))
    return unexpected(describe(*f));
  if (auto r = launch_and_wait(one); !r)
    return unexpected(describe(cuda_failure(r.error(), "kernel 0 '" + request.kernels.front().entry + "'")));
  return {};
}

int execute_request_file(const std::filesystem::path& request_file) {
  auto log = logging::get("runner");
  std::ifstream in{request_file, std::ios::binary};
  if (!in) {
    log->error("--execute: cannot read {}", request_file.string());
    return runner_exit_usage;
  }
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  auto request = decode_race_request(text);
  if (!request) {
    log->error("--execute {}: {}", request_file.string(), request.error().detail);
    return runner_exit_usage;
  }
  if (auto done = launch_first_kernel_once(*request); !done) {
    log->error("--execute {}: {}", request_file.string(), done.error());
    return runner_exit_execute_failed;
  }
  log->info("--execute: launched '{}' once", request->kernels.front().entry);
  return runner_exit_ok;
}

} // namespace warpforge::gpu
