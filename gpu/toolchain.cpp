#include "gpu/toolchain.hpp"

#include "foundation/json/writer.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <unistd.h>

namespace warpforge::gpu {

constexpr vocabulary::enum_word<cuda_tool> cuda_tool_words[] = {
    {cuda_tool::nvcc, "nvcc"},
    {cuda_tool::ptxas, "ptxas"},
    {cuda_tool::nvdisasm, "nvdisasm"},
    {cuda_tool::cuobjdump, "cuobjdump"},
    {cuda_tool::ncu, "ncu"},
};
static_assert(vocabulary::covers(cuda_tool_words, all_cuda_tools));

std::string_view to_string(cuda_tool tool) { return vocabulary::word_of(cuda_tool_words, tool); }

std::optional<cuda_tool> cuda_tool_from_string(std::string_view text) {
  return vocabulary::value_of(cuda_tool_words, text);
}

toolchain_environment toolchain_environment::from_process() {
  toolchain_environment env;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home)
    env.cuda_home = home;
  if (const char* path = std::getenv("PATH"))
    env.path = path;
  return env;
}

const tool_location& toolchain_report::find(cuda_tool tool) const {
  for (const auto& location : tools)
    if (location.tool == tool)
      return location;
  static const tool_location missing{};
  return missing;
}

namespace {

bool is_executable_file(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

} // namespace

std::optional<std::filesystem::path> find_tool(std::string_view name,
                                               const std::optional<std::string>& path_env,
                                               const std::filesystem::path& cuda_home) {
  if (path_env) {
    std::string_view rest = *path_env;
    while (true) {
      auto colon = rest.find(':');
      auto dir = rest.substr(0, colon);
      if (!dir.empty()) { // an empty entry would mean ".", which a daemon should not search
        auto candidate = std::filesystem::path{dir} / name;
        if (is_executable_file(candidate))
          return candidate;
      }
      if (colon == std::string_view::npos)
        break;
      rest.remove_prefix(colon + 1);
    }
  }
  auto candidate = cuda_home / "bin" / name;
  if (is_executable_file(candidate))
    return candidate;
  return std::nullopt;
}

toolchain_report probe_toolchain(const toolchain_environment& env) {
  toolchain_report report;
  report.cuda_home_from_env = env.cuda_home.has_value();
  report.cuda_home = env.cuda_home ? std::filesystem::path{*env.cuda_home} : default_cuda_home;
  std::error_code ec;
  report.cuda_home_exists = std::filesystem::is_directory(report.cuda_home, ec);
  if (auto r = WARPFORGE_GPU_CALL(nvrtcVersion(&report.nvrtc_major, &report.nvrtc_minor)); !r) {
    report.nvrtc_major = report.nvrtc_minor = 0;
    report.nvrtc_error = r.error();
  }
  for (auto tool : all_cuda_tools)
    report.tools.push_back({tool, find_tool(to_string(tool), env.path, report.cuda_home)});
  return report;
}

toolchain_report probe_toolchain() {
  return probe_toolchain(toolchain_environment::from_process());
}

void write_json(json::writer& out, const toolchain_report& report) {
  out.begin_object();
  out.key("cuda_home").value(report.cuda_home.string());
  out.key("cuda_home_from_env").value(report.cuda_home_from_env);
  out.key("cuda_home_exists").value(report.cuda_home_exists);
  out.key("nvrtc_version");
  if (report.nvrtc_error)
    out.null();
  else
    out.value(std::to_string(report.nvrtc_major) + "." + std::to_string(report.nvrtc_minor));
  out.key("nvrtc_error");
  if (report.nvrtc_error)
    out.value(report.nvrtc_error->to_string());
  else
    out.null();
  out.key("tools").begin_object();
  for (const auto& location : report.tools) {
    out.key(to_string(location.tool));
    if (location.path)
      out.value(location.path->string());
    else
      out.null();
  }
  out.end_object();
  out.end_object();
}

std::string to_text(const toolchain_report& report) {
  std::ostringstream out;
  out << "cuda home: " << report.cuda_home.string()
      << (report.cuda_home_from_env ? " ($CUDA_HOME)" : " (default)")
      << (report.cuda_home_exists ? "" : " — missing") << "\n";
  if (report.nvrtc_error)
    out << "nvrtc:     unavailable: " << report.nvrtc_error->to_string() << "\n";
  else
    out << "nvrtc:     " << report.nvrtc_major << "." << report.nvrtc_minor << "\n";
  constexpr std::size_t name_column = 10; // width of the tool-name column, characters
  for (const auto& location : report.tools) {
    std::string name{to_string(location.tool)};
    name.resize(std::max(name.size(), name_column), ' ');
    out << name << " " << (location.path ? location.path->string() : "not found") << "\n";
  }
  return out.str();
}

} // namespace warpforge::gpu
