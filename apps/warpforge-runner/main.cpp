// warpforge-runner: one per GPU, started by the coordinator (gpu/runner/runner_client.hpp).
//   warpforge-runner --endpoint ipc://<path> [--parent-pid N]   serve the runner protocol
//   warpforge-runner --query [--json]                            print the device report once
//   warpforge-runner --execute <request.json>                    launch kernels[0] of a run_race
//                                                                body once (no check, no timing;
//                                                                for ncu)
// CUDA_VISIBLE_DEVICES is set by the parent; the runner uses every device it can see.

#include "gpu/device_report.hpp"
#include "gpu/runtime/device_query.hpp"
#include "gpu/runtime/execute.hpp"
#include "gpu/runner/warm_up_level.hpp"
#include "gpu/runtime/runner_server.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv) {
  using namespace warpforge::gpu;
  CLI::App app{"warpforge-runner: runs candidate kernels on the GPUs it can see"};
  std::string endpoint;
  pid_t parent_pid = 0;
  bool query = false;
  bool json = false;
  std::string execute_file;
  auto* endpoint_option =
    app.add_option("--endpoint", endpoint, "serve the runner protocol on this ipc:// endpoint");
  app.add_option("--parent-pid", parent_pid, "exit when this process is no longer the parent")
    ->needs(endpoint_option);
  std::string warm_up = "none";
  std::string levels;
  for (auto level : all_warm_up_levels)
    levels += (levels.empty() ? "" : ", ") + std::string{to_string(level)};
  app.add_option("--warm-up", warm_up,
                 "what to open right after the hello: none, device (and NVML), or profiler (the device, then "
                 "CUPTI's profiler)")
    ->check([levels](const std::string& word) {
      return warm_up_level_from_string(word) ? std::string{} : "'" + word + "' is not one of " + levels;
    })
    ->needs(endpoint_option);
  auto* query_option = app.add_flag("--query", query, "print the device report and exit");
  app.add_flag("--json", json, "print the report as JSON")->needs(query_option);
  auto* execute_option = app.add_option("--execute", execute_file,
                                        "launch kernels[0] of this run_race body once and exit "
                                        "(0, or 6 when it could not run)");
  endpoint_option->excludes(query_option);
  execute_option->excludes(endpoint_option)->excludes(query_option);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? runner_exit_ok : runner_exit_usage; // --help is not an error
  }
  if (!execute_file.empty())
    return execute_request_file(execute_file);
  if (!query && endpoint.empty()) {
    std::cerr << "warpforge-runner: give --endpoint, --query or --execute\n" << app.help();
    return runner_exit_usage;
  }

  if (query) {
    phase_clock clock;
    auto report = query_host(device_query_depth::full, clock);
    std::cout << (json ? to_json(report) + "\n" : to_text(report));
    return runner_exit_ok;
  }
  runner_server_options options{endpoint, std::nullopt, *warm_up_level_from_string(warm_up)}; // checked above
  if (parent_pid > 0)
    options.parent_pid = parent_pid;
  return serve(options);
}
