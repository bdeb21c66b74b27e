#include "deploy/observe/draft/line_info.hpp"

#include "gpu/runner/child_process.hpp"
#include "gpu/toolchain.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>

namespace warpforge::observe {
namespace {

namespace fs = std::filesystem;

/// Seconds cuobjdump or nvdisasm may take on one program (a large fatbin disassembles in seconds).
constexpr std::chrono::seconds tool_timeout{120};

std::string read_text(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  return {std::istreambuf_iterator<char>{in}, {}};
}

/// Runs `tool` with `arguments` in `work_dir` (through /bin/sh, for the directory), output to `log`.
expected<void, std::string> run_tool(const fs::path& tool, std::vector<std::string> arguments, const fs::path& work_dir,
                                     const fs::path& log) {
  gpu::spawn_options spawn;
  spawn.executable = "/bin/sh";
  spawn.arguments = {"-c", "cd -- \"$1\" && shift && exec \"$@\"", "warpforge-init", work_dir.string(), tool.string()};
  spawn.arguments.insert(spawn.arguments.end(), arguments.begin(), arguments.end());
  spawn.output_file = log;
  auto child = gpu::child_process::spawn(spawn);
  if (!child)
    return unexpected{"cannot start " + tool.string() + ": " + child.error().detail};
  auto exit = child->wait_for_exit(std::chrono::duration_cast<std::chrono::milliseconds>(tool_timeout));
  if (!exit) {
    child->kill_and_reap();
    return unexpected{tool.filename().string() + " still running after " + std::to_string(tool_timeout.count()) + " s"};
  }
  if (exit->exit_code != 0) {
    std::string output = read_text(log);
    if (output.size() > 600) output = "..." + output.substr(output.size() - 600);
    return unexpected{tool.filename().string() + " ended with " + exit->to_string() + ": " + output};
  }
  return {};
}

} // namespace

std::optional<source_place> first_line_of_function(std::string_view listing, std::string_view symbol) {
  // The section label `.text.<symbol>:`, else the symbol's own label `<symbol>:`, each alone at
  // the start of its line (not a mention in a directive).
  std::size_t at = std::string_view::npos;
  for (const std::string& label : {".text." + std::string{symbol} + ":", std::string{symbol} + ":"}) {
    for (std::size_t found = listing.find(label); found != std::string_view::npos && at == std::string_view::npos;
         found = listing.find(label, found + 1)) {
      std::size_t line_start = listing.rfind('\n', found);
      line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
      if (listing.substr(line_start, found - line_start).find_first_not_of(" \t") == std::string_view::npos)
        at = found + label.size();
    }
    if (at != std::string_view::npos) break;
  }
  if (at == std::string_view::npos) return std::nullopt;
  const std::size_t next_function = listing.find("\n.text.", at);
  const std::string_view body = listing.substr(at, next_function == std::string_view::npos ? std::string_view::npos : next_function - at);
  constexpr std::string_view marker = "//## File \"";
  const std::size_t file_at = body.find(marker);
  if (file_at == std::string_view::npos) return std::nullopt;
  const std::size_t path_begin = file_at + marker.size();
  const std::size_t path_end = body.find('"', path_begin);
  if (path_end == std::string_view::npos) return std::nullopt;
  constexpr std::string_view line_word = "line ";
  const std::size_t line_at = body.find(line_word, path_end);
  if (line_at == std::string_view::npos) return std::nullopt;
  std::size_t line = 0;
  const char* digits = body.data() + line_at + line_word.size();
  auto [ptr, ec] = std::from_chars(digits, body.data() + body.size(), line);
  if (ec != std::errc{} || line == 0) return std::nullopt;
  return source_place{fs::path{std::string{body.substr(path_begin, path_end - path_begin)}}, line};
}

expected<source_place, std::string> kernel_place_from_line_info(const fs::path& program, std::string_view symbol,
                                                                const fs::path& work_dir) {
  const auto env = gpu::toolchain_environment::from_process();
  const fs::path cuda_home = env.cuda_home ? fs::path{*env.cuda_home} : gpu::default_cuda_home;
  const auto cuobjdump = gpu::find_tool("cuobjdump", env.path, cuda_home);
  const auto nvdisasm = gpu::find_tool("nvdisasm", env.path, cuda_home);
  if (!cuobjdump || !nvdisasm)
    return unexpected{std::string{"no "} + (!cuobjdump ? "cuobjdump" : "nvdisasm") +
                      " on PATH or in $CUDA_HOME/bin to read the program's line info: give the kernel's file with --source"};
  std::error_code ec;
  fs::create_directories(work_dir, ec);
  if (auto extracted = run_tool(*cuobjdump, {"-xelf", "all", fs::absolute(program).string()}, work_dir,
                                work_dir / "cuobjdump.log");
      !extracted)
    return unexpected{"extracting the CUBINs: " + extracted.error()};
  std::vector<fs::path> cubins;
  for (const auto& entry : fs::directory_iterator(work_dir, ec))
    if (entry.path().extension() == ".cubin")
      cubins.push_back(entry.path());
  std::sort(cubins.begin(), cubins.end());
  if (cubins.empty())
    return unexpected{"cuobjdump found no CUBIN in " + program.string() + " (only PTX?): give the kernel's file with --source"};
  for (const auto& cubin : cubins) {
    const auto listing_file = fs::path{cubin}.replace_extension(".sass");
    if (!run_tool(*nvdisasm, {"-g", cubin.filename().string()}, work_dir, listing_file))
      continue; // a CUBIN nvdisasm cannot read (another architecture's format): try the next
    if (auto place = first_line_of_function(read_text(listing_file), symbol))
      return *place;
  }
  return unexpected{"the program's CUBINs carry no line info for " + std::string{symbol} +
                    " (build it with nvcc -lineinfo, or give the kernel's file with --source)"};
}

} // namespace warpforge::observe
