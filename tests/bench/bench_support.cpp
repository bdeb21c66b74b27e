#include "tests/bench/bench_support.hpp"

#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/runner/runner_client.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdlib.h>
#include <fstream>
#include <sstream>

namespace warpforge::bench {

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in{path};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

std::optional<scratch_folder> scratch_folder::make(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::fprintf(stderr, "mkdtemp %s: %s\n", pattern.c_str(), std::strerror(errno));
    return std::nullopt;
  }
  return scratch_folder{pattern};
}

scratch_folder::~scratch_folder() {
  if (path_.empty())
    return;
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::optional<fs::path> runner_executable(const std::optional<fs::path>& flag) {
  if (flag)
    return *flag;
  auto found = gpu::locate_runner();
  if (!found) {
    std::fprintf(stderr, "%s\n", found.error().to_string().c_str());
    return std::nullopt;
  }
  return *found;
}

std::optional<gpu::device_info> first_gpu(const gpu::runner_options& runner) {
  auto probe = gpu::runner_client::start(runner);
  auto report = probe ? probe->device_query(gpu::device_query_depth::full) : expected<gpu::host_report, gpu::runner_error>{unexpected{probe.error()}};
  if (!report || report->status != gpu::gpu_status::ok || report->devices.empty()) {
    std::fprintf(stderr, "no usable GPU: %s\n", report ? report->reason.c_str() : report.error().to_string().c_str());
    return std::nullopt;
  }
  return report->devices.front();
}

double compile_to(const config::kernel_spec& kernel, const config::resolved_problem& resolved, const std::string& arch,
                  const fs::path& cubin) {
  gpu::compile_request request;
  request.source = read_text(kernel.source);
  request.source_name = kernel.source.filename().string();
  request.entry = kernel.entry;
  request.arch = arch;
  request.extra_flags = resolved.defines; // "-DNAME=value"
  request.extra_flags.insert(request.extra_flags.end(), kernel.flags.begin(), kernel.flags.end());
  const auto start = std::chrono::steady_clock::now();
  auto compiled = gpu::compile_kernel(request);
  const double took = seconds_since(start);
  if (!compiled) {
    std::fprintf(stderr, "compile %s failed: %s\n", kernel.source.string().c_str(), compiled.error().log.c_str());
    return -1.0;
  }
  std::ofstream{cubin, std::ios::binary}.write(reinterpret_cast<const char*>(compiled->cubin.data()),
                                               static_cast<std::streamsize>(compiled->cubin.size()));
  return took;
}

std::unique_ptr<actors::runner_keeper> started_keeper(const actors::runner_keeper_options& options) {
  auto keeper = std::make_unique<actors::runner_keeper>(options, [](const actors::runner_event& e) {
    if (!e.reason.empty())
      std::printf("  runner event: %s\n", e.reason.c_str());
  });
  const auto start = std::chrono::steady_clock::now();
  if (!keeper->ensure_running()) {
    std::fprintf(stderr, "the runner would not start: %s\n", keeper->give_up_reason().c_str());
    return nullptr;
  }
  std::printf("  runner started in %.3f s\n", seconds_since(start));
  return keeper;
}

const config::kernel_spec& reference_kernel(const config::problem_spec& spec) {
  return spec.reference.kind == config::reference_kind::kernel ? spec.reference.kernel : spec.kernel;
}

gpu::race_inputs inputs_with_reference(const config::problem_spec& spec, const config::resolved_problem& resolved,
                                       const fs::path& dir) {
  gpu::race_inputs inputs;
  inputs.reference_cubin = dir / "reference.cubin";
  inputs.reference_entry = reference_kernel(spec).entry;
  if (spec.reference.kind == config::reference_kind::self)
    inputs.reference_launch = resolved.launch;
  inputs.seed = 20240917;
  return inputs;
}

} // namespace warpforge::bench
