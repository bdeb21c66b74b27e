#include "sass/disassembler.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/runner/child_process.hpp"
#include "sass/listing_memo.hpp"
#include "sass/parser.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace warpforge::sass {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view output_name = "disassembly.txt";
const fs::path default_cuda_home{"/usr/local/cuda"};

unexpected<disassemble_failure> failure(disassemble_failure_kind kind, std::string detail) {
  return unexpected(disassemble_failure{kind, std::move(detail)});
}

bool is_executable_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

/// `name` on PATH (empty entries skipped: they would mean "."), then in each home's bin/.
std::optional<fs::path> locate(std::string_view name, const tool_search& where) {
  if (where.path) {
    std::string_view rest = *where.path;
    while (true) {
      const auto colon = rest.find(':');
      if (const auto dir = rest.substr(0, colon); !dir.empty())
        if (auto candidate = fs::path{dir} / name; is_executable_file(candidate))
          return candidate;
      if (colon == std::string_view::npos)
        break;
      rest.remove_prefix(colon + 1);
    }
  }
  for (const auto& home : where.cuda_homes)
    if (auto candidate = home / "bin" / name; is_executable_file(candidate))
      return candidate;
  return std::nullopt;
}

std::string describe_search(const tool_search& where) {
  std::string text = where.path ? "looked on PATH" : "no PATH";
  for (const auto& home : where.cuda_homes)
    text += ", in " + (home / "bin").string();
  return text;
}

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream content;
  content << in.rdbuf();
  return std::move(content).str();
}

std::string tail(const std::string& text) {
  if (text.size() <= quoted_tool_output_bytes)
    return text;
  return "…" + text.substr(text.size() - quoted_tool_output_bytes);
}

/// A private folder for the tool's output, removed with the guard.
struct scratch_dir {
  fs::path path;
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  explicit scratch_dir(fs::path p) : path(std::move(p)) {}
  ~scratch_dir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

std::optional<fs::path> make_scratch_dir() {
  std::error_code ec;
  auto base = fs::temp_directory_path(ec);
  if (ec)
    base = "/tmp";
  std::string pattern = (base / "warpforge-sass-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return std::nullopt;
  return fs::path{pattern};
}

std::string command_text(const disassembler& tool, const fs::path& cubin) {
  std::string text = tool.tool.string();
  for (const auto& argument : tool.arguments(cubin))
    text += " " + argument;
  return text;
}

} // namespace

constexpr vocabulary::enum_word<disassemble_failure_kind> disassemble_failure_kind_words[] = {
    {disassemble_failure_kind::unavailable, "unavailable"},
    {disassemble_failure_kind::missing_cubin, "missing_cubin"},
    {disassemble_failure_kind::tool_failed, "tool_failed"},
    {disassemble_failure_kind::timed_out, "timed_out"},
    {disassemble_failure_kind::unparseable, "unparseable"},
};
static_assert(vocabulary::covers(disassemble_failure_kind_words, all_disassemble_failure_kinds));

std::string_view to_string(disassemble_failure_kind kind) {
  return vocabulary::word_of(disassemble_failure_kind_words, kind);
}

std::optional<disassemble_failure_kind> disassemble_failure_kind_from_string(std::string_view text) {
  return vocabulary::value_of(disassemble_failure_kind_words, text);
}

std::string disassemble_failure::to_string() const {
  return std::string{sass::to_string(kind)} + ": " + detail;
}

std::vector<std::string> disassembler::arguments(const fs::path& cubin) const {
  if (format == sass_format::cuobjdump)
    return {"-sass", cubin.string()};
  return {"-c", cubin.string()};
}

tool_search tool_search::from_process() {
  tool_search where;
  if (const char* path = std::getenv("PATH"))
    where.path = path;
  // CUDA_HOME, when set, is the toolkit (as for gpu/toolchain.hpp and doctor); else the default.
  if (const char* home = std::getenv("CUDA_HOME"); home && *home)
    where.cuda_homes.emplace_back(home);
  else
    where.cuda_homes.push_back(default_cuda_home);
  return where;
}

expected<disassembler, disassemble_failure> find_disassembler(const tool_search& where) {
  if (auto nvdisasm = locate("nvdisasm", where))
    return disassembler{*nvdisasm, sass_format::nvdisasm};
  if (auto cuobjdump = locate("cuobjdump", where))
    return disassembler{*cuobjdump, sass_format::cuobjdump};
  return failure(disassemble_failure_kind::unavailable,
                 "no nvdisasm or cuobjdump on this host (" + describe_search(where) + ")");
}

expected<disassembler, disassemble_failure> find_disassembler() {
  return find_disassembler(tool_search::from_process());
}

expected<disassembly, disassemble_failure>
disassemble(const disassembler& tool, const fs::path& cubin, std::chrono::milliseconds timeout, listing_memo& memo) {
  if (!is_executable_file(tool.tool))
    return failure(disassemble_failure_kind::unavailable,
                   "no " + std::string{to_string(tool.format)} + " at " + tool.tool.string() +
                       " (missing or not executable)");
  std::error_code ec;
  if (!fs::is_regular_file(cubin, ec))
    return failure(disassemble_failure_kind::missing_cubin, "no CUBIN at " + cubin.string());
  auto parse = [&](const std::string& printed) -> expected<disassembly, disassemble_failure> {
    auto parsed = parse_sass(printed, tool.format);
    if (!parsed)
      return failure(disassemble_failure_kind::unparseable,
                     command_text(tool, cubin) + " printed something the parser cannot read: " +
                         parsed.error().to_string());
    return std::move(*parsed);
  };
  // The same machine code was disassembled before, in this process or (kept on disk) an earlier
  // one: its listing (listing_memo.hpp). One the parser reads no kernel from is not used (the
  // parser reads most text as a listing): the tool runs, and its listing replaces it.
  const auto bytes = read_file(cubin);
  auto key = bytes ? listing_memo::key(tool.tool, to_string(tool.format), *bytes) : std::nullopt;
  if (key)
    if (auto printed = memo.find(*key))
      if (auto parsed = parse(*printed); parsed && !parsed->kernels.empty())
        return parsed;

  auto scratch_path = make_scratch_dir();
  if (!scratch_path)
    return failure(disassemble_failure_kind::tool_failed,
                   "cannot create a scratch folder for the tool's output");
  const scratch_dir scratch{*scratch_path};
  // The tool reads a copy of the bytes the key was made of: a CUBIN rewritten meanwhile must not
  // leave its listing under the old bytes' key. (Messages still name the CUBIN asked about.)
  fs::path input = cubin;
  if (key) {
    const auto copy = scratch.path / cubin.filename();
    std::ofstream out(copy, std::ios::binary);
    if (out.write(bytes->data(), static_cast<std::streamsize>(bytes->size())) && out.flush())
      input = copy;
    else
      key.reset(); // no copy: the tool reads the CUBIN itself, and what it prints is not kept
  }

  gpu::spawn_options options;
  options.executable = tool.tool;
  options.arguments = tool.arguments(input);
  options.output_file = scratch.path / output_name;
  auto child = gpu::child_process::spawn(options);
  if (!child) {
    const int error = child.error().error_number;
    const bool cannot_run = error == ENOENT || error == EACCES || error == ENOEXEC;
    return failure(cannot_run ? disassemble_failure_kind::unavailable
                              : disassemble_failure_kind::tool_failed,
                   child.error().detail);
  }
  auto exit = child->wait_for_exit(timeout);
  if (!exit) {
    child->kill_and_reap();
    return failure(disassemble_failure_kind::timed_out,
                   command_text(tool, cubin) + " did not finish within " +
                       std::to_string(timeout.count()) + " ms and was killed");
  }
  auto output = read_file(options.output_file);
  if (!output)
    return failure(disassemble_failure_kind::tool_failed,
                   command_text(tool, cubin) + ": cannot read its output");
  if (exit->exit_code != 0)
    return failure(disassemble_failure_kind::tool_failed,
                   command_text(tool, cubin) + ": " + exit->to_string() + "\n" + tail(*output));

  auto parsed = parse(*output);
  if (parsed && key && !parsed->kernels.empty()) // none: never used from the memo (above)
    memo.keep(*key, std::move(*output));
  return parsed;
}

expected<disassembly, disassemble_failure> disassemble(const fs::path& cubin) {
  auto tool = find_disassembler();
  if (!tool)
    return unexpected(std::move(tool).error());
  return disassemble(*tool, cubin);
}

} // namespace warpforge::sass
