#include "cli/kernel_build.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace warpforge::cli {

namespace fs = std::filesystem;

namespace {

// "-DNAME=value" (config's form) → the compiler's define.
gpu::macro_define to_define(const std::string& flag) {
  const auto body = flag.rfind("-D", 0) == 0 ? flag.substr(2) : flag;
  const auto eq = body.find('=');
  if (eq == std::string::npos)
    return {body, ""};
  return {body.substr(0, eq), body.substr(eq + 1)};
}

} // namespace

expected<kernel_source, std::string> read_kernel(const fs::path& path, std::string entry,
                                                 std::vector<std::string> flags) {
  std::ifstream in{path};
  if (!in)
    return unexpected{"cannot read kernel source " + path.string() + ": " + std::strerror(errno)};
  std::stringstream text;
  text << in.rdbuf();
  return kernel_source{path, std::move(entry), std::move(flags), text.str()};
}

std::string arch_for(const config::problem_spec& spec, const gpu::device_info* device) {
  if (spec.kernel.arch)
    return *spec.kernel.arch;
  return device ? device->arch() : std::string{fallback_arch};
}

gpu::compile_request compile_request_for(const kernel_source& kernel, const std::string& arch,
                                         const config::resolved_problem& problem) {
  gpu::compile_request r;
  r.source = kernel.text;
  r.source_name = kernel.path.filename().string();
  r.entry = kernel.entry;
  r.arch = arch;
  for (const auto& d : problem.defines)
    r.defines.push_back(to_define(d));
  r.extra_flags = kernel.flags;
  return r;
}

expected<void, std::string> write_cubin(const fs::path& file, const std::vector<std::uint8_t>& cubin) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  std::ofstream out{file, std::ios::binary};
  out.write(reinterpret_cast<const char*>(cubin.data()), static_cast<std::streamsize>(cubin.size()));
  if (!out)
    return unexpected{"cannot write " + file.string()};
  return {};
}

} // namespace warpforge::cli
