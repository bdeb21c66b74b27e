#include "deploy/observe/run_observed.hpp"

#include "deploy/observe/launches/launch_log.hpp"
#include "deploy/observe/ncu_launches.hpp"
#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/toolchain.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <system_error>

namespace warpforge::observe {
namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

constexpr std::string_view inject_env = "WARPFORGE_OBSERVE_INJECT";
constexpr std::string_view out_env = "WARPFORGE_OBSERVE_OUT";
constexpr std::string_view kernel_env = "WARPFORGE_OBSERVE_KERNEL";
constexpr std::string_view buffers_env = "WARPFORGE_OBSERVE_BUFFERS";
constexpr std::string_view cuda_injection_env = "CUDA_INJECTION64_PATH";
/// Lines of the program's output quoted when it ran past its timeout.
constexpr std::size_t timeout_tail_lines = 20;

std::optional<std::string> env(std::string_view name) {
  const char* value = std::getenv(std::string{name}.c_str());
  return value && *value ? std::optional<std::string>{value} : std::nullopt;
}

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string read_text(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  return {std::istreambuf_iterator<char>{in}, {}};
}

// What to spawn: the command as is, or through /bin/sh to change directory first (posix_spawn
// has no portable chdir; the shell execs the command, so it is the process the timeout kills).
gpu::spawn_options spawn_in(const fs::path& workdir, std::vector<std::string> argv) {
  gpu::spawn_options spawn;
  if (workdir.empty()) {
    spawn.executable = argv.front();
    spawn.arguments.assign(argv.begin() + 1, argv.end());
    return spawn;
  }
  spawn.executable = "/bin/sh";
  spawn.arguments = {"-c", "cd -- \"$1\" && shift && exec \"$@\"", "warpforge-observe", workdir.string()};
  spawn.arguments.insert(spawn.arguments.end(), argv.begin(), argv.end());
  return spawn;
}

// Runs `spawn` to its end or the timeout; fills exit, output and wall time.
expected<void, std::string> run_to_end(gpu::spawn_options spawn, const observe_request& request,
                                       observed_run& out) {
  spawn.output_file = request.log_dir / program_output_file_name;
  const auto start = clock_type::now();
  auto child = gpu::child_process::spawn(spawn);
  if (!child)
    return unexpected("cannot start " + out.command.front() + ": " + child.error().detail);
  auto exit = child->wait_for_exit(std::chrono::duration_cast<std::chrono::milliseconds>(request.timeout));
  out.wall_s = std::chrono::duration<double>(clock_type::now() - start).count();
  out.output = read_text(spawn.output_file);
  if (!exit) {
    ::kill(-child->pid(), SIGKILL); // the program and whatever it started share its process group
    child->kill_and_reap();
    return unexpected(out.command.front() + " still running after " + std::to_string(request.timeout.count()) +
                      " s; killed. Its last output:\n" + output_tail(out.output, timeout_tail_lines));
  }
  out.exit = *exit;
  return {};
}

// Keeps the launches of the named kernel (ncu filters too; this is the exact rule) and counts the others.
void keep_named(observed_run& out, std::string_view kernel) {
  std::erase_if(out.launches, [&](const launch_record& r) {
    const bool named = matches_kernel(r, kernel);
    if (!named)
      ++out.other_kernels[r.demangled];
    return !named;
  });
}

// `name` is the launch log's or a sibling `<log>.<pid>` a second CUDA process writes (inject/README.md).
std::optional<std::uint64_t> extra_log_pid(const std::string& name) {
  const std::string prefix = std::string{launch_log_file_name} + ".";
  if (!name.starts_with(prefix) || name.size() == prefix.size() || name.size() > prefix.size() + 19)
    return std::nullopt;
  std::uint64_t pid = 0;
  for (char c : name.substr(prefix.size())) {
    if (c < '0' || c > '9')
      return std::nullopt;
    pid = pid * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return pid;
}

// Every launch log in log_dir: launches.jsonl first (the first CUDA process), then the other
// processes' launches.jsonl.<pid> by pid.
std::vector<fs::path> launch_logs(const fs::path& log_dir) {
  std::vector<std::pair<std::uint64_t, fs::path>> extra;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator{log_dir, ec})
    if (auto pid = extra_log_pid(entry.path().filename().string()))
      extra.emplace_back(*pid, entry.path());
  std::sort(extra.begin(), extra.end());
  std::vector<fs::path> out;
  if (is_file(log_dir / launch_log_file_name))
    out.push_back(log_dir / launch_log_file_name);
  for (auto& [pid, path] : extra)
    out.push_back(std::move(path));
  return out;
}

// Reads one log into `out`: its launches by seq after those of the logs before it, its notes
// (named by the file when there are several processes).
expected<std::size_t, std::string> append_launch_log(const fs::path& log, bool several, observed_run& out) {
  auto read = read_launch_log(log);
  if (!read)
    return unexpected("the launch log is unreadable: " + read.error());
  const std::string from = several ? log.filename().string() + ": " : "";
  std::stable_sort(read->launches.begin(), read->launches.end(),
                   [](const launch_record& a, const launch_record& b) { return a.sequence < b.sequence; });
  const std::size_t count = read->launches.size();
  out.launches.insert(out.launches.end(), std::make_move_iterator(read->launches.begin()),
                      std::make_move_iterator(read->launches.end()));
  for (const auto& note : read->notes)
    out.notes.push_back(from + note);
  if (!read->complete)
    out.notes.push_back(from + "the launch log has no end line: the program ended before the injection library "
                        "finished it (a crash, or a kill); the launches up to then are kept");
  if (read->dropped > 0)
    out.notes.push_back(from + std::to_string(read->dropped) + " launches were seen but not recorded (dropped)");
  return count;
}

// Removes the launch logs of an earlier run, so that the first process writes launches.jsonl again.
void remove_launch_logs(const fs::path& log_dir) {
  std::error_code ec;
  for (const auto& log : launch_logs(log_dir))
    fs::remove(log, ec);
}

expected<observed_run, std::string> run_with_injection(const observe_request& request, const fs::path& library,
                                                       observed_run out) {
  out.method = "cupti";
  const auto log = request.log_dir / launch_log_file_name;
  remove_launch_logs(request.log_dir);
  auto spawn = spawn_in(request.workdir, out.command);
  spawn.environment = {{std::string{cuda_injection_env}, library.string()}, {std::string{out_env}, log.string()},
                       {std::string{kernel_env}, ""}}; // record every kernel: see run_observed.hpp
  if (!request.buffers_kernel.empty())
    spawn.environment.emplace_back(std::string{buffers_env}, request.buffers_kernel);
  if (auto ran = run_to_end(std::move(spawn), request, out); !ran)
    return unexpected(ran.error());
  const auto logs = launch_logs(request.log_dir);
  if (logs.empty()) {
    out.notes.push_back("no launch log was written (" + log.string() + "): the program never initialised "
                        "CUDA, or CUDA did not load the injection library " + library.string());
    return out;
  }
  std::string processes;
  for (const auto& one : logs) {
    auto count = append_launch_log(one, logs.size() > 1, out);
    if (!count)
      return unexpected(count.error());
    processes += (processes.empty() ? "" : ", ") + one.filename().string() + " (" + std::to_string(*count) + " launches)";
  }
  if (logs.size() > 1)
    out.notes.push_back(std::to_string(logs.size()) + " CUDA processes observed: " + processes +
                        "; their launches are merged, process after process (seq counts within each)");
  keep_named(out, request.kernel);
  return out;
}

std::optional<fs::path> find_ncu(const observe_request& request) {
  if (!request.ncu.empty())
    return request.ncu;
  auto where = gpu::toolchain_environment::from_process();
  return gpu::find_tool("ncu", where.path, where.cuda_home ? fs::path{*where.cuda_home} : gpu::default_cuda_home);
}

expected<observed_run, std::string> run_with_ncu(const observe_request& request, observed_run out) {
  out.method = "ncu";
  auto ncu = find_ncu(request);
  if (!ncu)
    return unexpected(std::string{"ncu was not found on PATH nor in $CUDA_HOME/bin (needed for --method ncu, "
                                  "and when the injection library is missing)"});
  const auto csv = request.log_dir / ncu_csv_file_name;
  std::error_code ec;
  fs::remove(csv, ec);
  std::vector<std::string> argv{ncu->string()};
  for (auto& arg : ncu_observe_arguments(request.kernel, csv, out.command))
    argv.push_back(std::move(arg));
  if (auto ran = run_to_end(spawn_in(request.workdir, argv), request, out); !ran)
    return unexpected(ran.error());
  auto launches = ncu_csv_launches(read_text(csv));
  if (!launches)
    return unexpected(launches.error() + " (" + csv.string() + ")");
  out.launches = std::move(*launches);
  keep_named(out, request.kernel);
  out.notes.push_back("ncu: scalar arguments are not available");
  out.notes.push_back("ncu: launches were serialised and replayed by ncu; durations are ncu's gpu__time_duration");
  return out;
}

} // namespace

constexpr vocabulary::enum_word<observe_method> observe_method_words[] = {
    {observe_method::automatic, "auto"},
    {observe_method::cupti, "cupti"},
    {observe_method::ncu, "ncu"},
};
static_assert(vocabulary::covers(observe_method_words, all_observe_methods));

std::string_view to_string(observe_method method) { return vocabulary::word_of(observe_method_words, method); }

std::optional<observe_method> observe_method_from_string(std::string_view text) {
  return vocabulary::value_of(observe_method_words, text);
}

std::optional<fs::path> find_inject_library() {
  if (auto given = env(inject_env))
    return is_file(*given) ? std::optional<fs::path>{*given} : std::nullopt;
  std::error_code ec;
  auto self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    if (auto bundled = self.parent_path().parent_path() / "lib" / inject_library_name; is_file(bundled))
      return bundled;
#ifdef WARPFORGE_OBSERVE_INJECT_BUILD_PATH
  if (fs::path built{WARPFORGE_OBSERVE_INJECT_BUILD_PATH}; is_file(built))
    return built;
#endif
  return std::nullopt;
}

expected<fs::path, std::string> resolve_program(std::string_view name, const fs::path& workdir) {
  if (name.empty())
    return unexpected(std::string{"no program given (warpforge observe [options] -- program args...)"});
  std::optional<fs::path> found;
  if (name.find('/') == std::string_view::npos) {
    found = gpu::find_tool(name, env("PATH"), fs::path{"/nonexistent"}); // PATH only
    if (!found)
      return unexpected("program '" + std::string{name} + "' not found on PATH");
  } else {
    found = fs::path{name}.is_absolute() || workdir.empty() ? fs::path{name} : workdir / name;
  }
  std::error_code ec;
  auto absolute = fs::absolute(*found, ec).lexically_normal();
  if (ec || !is_file(absolute))
    return unexpected("program '" + std::string{name} + "' not found (" + absolute.string() + ")");
  if (::access(absolute.c_str(), X_OK) != 0)
    return unexpected("program '" + std::string{name} + "' is not executable (" + absolute.string() + ")");
  return absolute;
}

std::string output_tail(std::string_view text, std::size_t lines) {
  std::size_t start = text.size();
  if (!text.empty() && text.back() == '\n')
    --start;
  for (std::size_t seen = 0; start > 0; --start)
    if (text[start - 1] == '\n' && ++seen == lines)
      break;
  return std::string{text.substr(start)};
}

expected<observed_run, std::string> run_observed(const observe_request& request) {
  if (request.command.empty())
    return unexpected(std::string{"no program given"});
  auto program = resolve_program(request.command.front(), request.workdir);
  if (!program)
    return unexpected(program.error());
  std::error_code ec;
  fs::create_directories(request.log_dir, ec);
  if (ec)
    return unexpected("creating " + request.log_dir.string() + ": " + ec.message());
  observed_run out;
  out.command = request.command;
  out.command.front() = program->string();
  std::optional<fs::path> library;
  if (request.method != observe_method::ncu)
    library = request.inject_library.empty() ? find_inject_library() : std::optional{request.inject_library};
  if (library && !is_file(*library))
    return unexpected("the injection library " + library->string() + " does not exist");
  if (request.method == observe_method::cupti && !library)
    return unexpected("the injection library " + std::string{inject_library_name} + " was not found ($" +
                      std::string{inject_env} + ", <warpforge>/../lib/, the build tree); use --method ncu");
  if (library)
    return run_with_injection(request, *library, std::move(out));
  if (request.method == observe_method::automatic)
    out.notes.push_back("the injection library was not found; observed with ncu");
  return run_with_ncu(request, std::move(out));
}

} // namespace warpforge::observe
