// The ncu metric source on the CPU: the command line, ncu's raw CSV (a hand-written fixture, see
// tests/gpu/fixtures/README.md), what a run means, and the whole path with a stand-in ncu script.
// Also `warpforge-runner --execute`'s exit codes without a GPU.
#include "gpu/compile/nvrtc_compiler.hpp"
#include "gpu/runner/child_process.hpp"
#include "gpu/runner/ncu_profile.hpp"
#include "tests/gpu/test_paths.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

using namespace warpforge;
using namespace warpforge::gpu;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const fs::path fixtures = fs::path{WARPFORGE_SOURCE_DIR} / "tests/gpu/fixtures";
const fs::path fixture = fixtures / "ncu_raw_vector_add.csv";          // hand-written
const fs::path capture = fixtures / "ncu_raw_vector_add_h200.csv";     // a real ncu run
constexpr auto dram = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr auto duration = "gpu__time_duration.sum";
constexpr auto stall = "smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio";

std::string read_text(const fs::path& file) {
  std::ifstream in{file, std::ios::binary};
  return {std::istreambuf_iterator<char>{in}, {}};
}

profile_request sample_request() {
  profile_request r;
  r.run.kernels = {{"/tmp/vector_add.cubin", "vector_add", {{65536, 1, 1}, {256, 1, 1}, 0}}};
  r.run.args.emplace_back(candidate_scalar_arg{"n", config::dtype::i32, std::int64_t{16}});
  r.run.seeds = {1};
  r.metrics = {dram, duration, stall, "l1tex__no_such_metric.sum"};
  return r;
}

// A fresh directory per test, removed afterwards.
struct scratch_dir {
  fs::path path;
  explicit scratch_dir(const std::string& name)
    : path(fs::temp_directory_path() /
           ("warpforge-ncu-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// An executable shell script standing in for ncu.
fs::path write_script(const fs::path& dir, const std::string& body) {
  auto script = dir / "fake-ncu";
  std::ofstream{script} << "#!/bin/sh\n" << body;
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

// The value following `flag` in `args`, or "" when absent.
std::string after(const std::vector<std::string>& args, const std::string& flag) {
  auto at = std::find(args.begin(), args.end(), flag);
  return at == args.end() || at + 1 == args.end() ? "" : *(at + 1);
}

} // namespace

TEST(ncu_profile, the_command_line_never_locks_clocks_and_profiles_one_launch_of_the_entry) {
  ncu_options options;
  options.runner = "/opt/wf/bin/warpforge-runner";
  options.work_dir = "/tmp/wf-prof";
  auto request = sample_request();
  auto args = ncu_arguments(request, options);
  EXPECT_EQ(after(args, "--clock-control"), "none");
  EXPECT_EQ(std::count(args.begin(), args.end(), "--clock-control"), 1);
  for (const auto& arg : args) { // no other way of pinning clocks sneaks in
    EXPECT_FALSE(arg.starts_with("--lock")) << arg;
    EXPECT_NE(arg, "-lgc") << arg;
  }
  EXPECT_EQ(after(args, "--csv"), "--page");
  EXPECT_EQ(after(args, "--page"), "raw");
  EXPECT_EQ(std::count(args.begin(), args.end(), "base"), 1); // --print-units', never a clock
  EXPECT_EQ(after(args, "--print-units"), "base");
  EXPECT_EQ(after(args, "--kernel-name"), "vector_add");
  EXPECT_EQ(after(args, "--kernel-name-base"), "mangled");
  EXPECT_EQ(after(args, "--launch-count"), "1");
  EXPECT_EQ(after(args, "--replay-mode"), "kernel");
  EXPECT_EQ(after(args, "--metrics"), std::string{dram} + "," + duration + "," + stall +
                                        ",l1tex__no_such_metric.sum");
  EXPECT_EQ(after(args, "--log-file"), "/tmp/wf-prof/ncu.csv");
  ASSERT_GE(args.size(), 3u);
  EXPECT_EQ(args[args.size() - 3], "/opt/wf/bin/warpforge-runner"); // the profiled process, last
  EXPECT_EQ(args[args.size() - 2], "--execute");
  EXPECT_EQ(args.back(), "/tmp/wf-prof/request.json");

  request.replay = profile_replay::user; // re-run the one-shot runner per pass
  EXPECT_EQ(after(ncu_arguments(request, options), "--replay-mode"), "application");
}

// Issue 29: ncu matches --kernel-name against the mangled name (--kernel-name-base mangled), so a
// C++ or template entry is given as its lowered symbol, read from its CUBIN.
TEST(ncu_profile, a_template_entry_is_profiled_by_its_lowered_symbol_from_the_cubin) {
  scratch_dir dir{"symbol"};
  compile_request compile;
  compile.source = "__global__ void other(float* x) { x[0] = 0.0f; }\n"
                   "template <int N> __global__ void scaled(float* x) { x[threadIdx.x] *= N; }\n";
  compile.entry = "scaled<64>";
  const auto kernel = compile_kernel(compile);
  ASSERT_TRUE(kernel) << kernel.error().log;
  const auto cubin = dir.path / "kernel.cubin";
  std::ofstream{cubin, std::ios::binary}.write(reinterpret_cast<const char*>(kernel->cubin.data()),
                                               static_cast<std::streamsize>(kernel->cubin.size()));
  auto request = sample_request();
  request.run.kernels.front().cubin_path = cubin;
  request.run.kernels.front().entry = "scaled<64>";
  const auto args = ncu_arguments(request, ncu_options{});
  EXPECT_EQ(after(args, "--kernel-name-base"), "mangled");
  EXPECT_EQ(after(args, "--kernel-name"), "_Z6scaledILi64EEvPf");
}

TEST(ncu_profile, the_raw_csv_gives_units_and_one_launch_with_numbers_and_text) {
  auto table = parse_ncu_csv(read_text(fixture));
  ASSERT_TRUE(table) << table.error().line << ": " << table.error().message;
  EXPECT_EQ(table->units.at(dram), "%");
  EXPECT_EQ(table->units.at(duration), "ns");
  EXPECT_EQ(table->units.at("Kernel Name"), "");
  ASSERT_EQ(table->launches.size(), 1u);
  const auto& launch = table->launches.front();
  EXPECT_DOUBLE_EQ(launch.values.at(dram), 91.37);
  EXPECT_DOUBLE_EQ(launch.values.at(duration), 72416.0);          // "72,416"
  EXPECT_DOUBLE_EQ(launch.values.at("dram__bytes_read.sum"), 134217728.0);
  EXPECT_EQ(launch.text.at("Kernel Name"), "vector_add");
  EXPECT_EQ(launch.text.at("Block Size"), "(256, 1, 1)");          // a comma inside quotes
  EXPECT_EQ(launch.text.at(stall), "n/a");
  EXPECT_DOUBLE_EQ(launch.values.at(std::string{ncu_passes_column}), 9.0);
}

TEST(ncu_profile, a_real_capture_from_an_h200_reads_the_same_way) {
  auto request = sample_request();
  request.metrics = {dram, duration, "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                     "warpforge__no_such_metric.sum"};
  auto result = interpret_ncu_run(request, read_text(capture), "", child_exit{0, std::nullopt}, 1s);
  EXPECT_EQ(result.status, profile_status::ok) << result.note;
  EXPECT_DOUBLE_EQ(result.values.at(dram), 67.44);
  EXPECT_DOUBLE_EQ(result.values.at(duration), 58272.0);
  EXPECT_DOUBLE_EQ(result.values.at("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 34.67);
  EXPECT_EQ(result.missing.count("warpforge__no_such_metric.sum"), 1u);
  EXPECT_EQ(result.passes, 9u);
  auto table = parse_ncu_csv(read_text(capture));
  ASSERT_TRUE(table);
  EXPECT_EQ(table->units.at(duration), "ns");
  EXPECT_EQ(table->launches.front().text.at("Kernel Name"), "vector_add");
}

TEST(ncu_profile, malformed_csv_is_an_error_naming_the_line) {
  auto table = parse_ncu_csv("==PROF== x\n\"ID\",\"a\"\n\"\",\"%\"\n\"0\",\"1\",\"2\"\n");
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().line, 4u);
  EXPECT_NE(table.error().message.find("3 fields"), std::string::npos) << table.error().message;

  table = parse_ncu_csv("\"ID\",\"a\n");
  ASSERT_FALSE(table);
  EXPECT_NE(table.error().message.find("quotes"), std::string::npos);

  table = parse_ncu_csv("\"Kernel\",\"a\"\n");
  ASSERT_FALSE(table);
  EXPECT_NE(table.error().message.find("header"), std::string::npos);

  table = parse_ncu_csv("==PROF== Connected\n==WARNING== No kernels were profiled.\n");
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().line, 0u);

  table = parse_ncu_csv("\"ID\",\"a\"\n\"\",\"%\"\n"); // a header, no launch: not an error here
  ASSERT_TRUE(table);
  EXPECT_TRUE(table->launches.empty());
}

TEST(ncu_profile, a_good_run_gives_values_and_names_each_missing_metric) {
  auto request = sample_request();
  auto result = interpret_ncu_run(request, read_text(fixture), "", child_exit{0, std::nullopt}, 1s);
  EXPECT_EQ(result.status, profile_status::ok) << result.note;
  EXPECT_EQ(result.source, metric_source::ncu);
  EXPECT_DOUBLE_EQ(result.values.at(dram), 91.37);
  EXPECT_DOUBLE_EQ(result.values.at(duration), 72416.0);
  EXPECT_EQ(result.values.size(), 2u);
  ASSERT_EQ(result.missing.size(), 2u);
  EXPECT_NE(result.missing.at(stall).find("n/a"), std::string::npos);
  EXPECT_NE(result.missing.at("l1tex__no_such_metric.sum").find("not in ncu's output"),
            std::string::npos);
  EXPECT_EQ(result.passes, 9u);
  EXPECT_NE(result.note.find("clocks not locked"), std::string::npos);
}

TEST(ncu_profile, what_a_failed_run_means) {
  auto request = sample_request();
  auto denied = interpret_ncu_run(
    request, "",
    "==PROF== Connected to process 1\n==ERROR== ERR_NVGPUCTRPERM - The user does not have "
    "permission to access NVIDIA GPU Performance Counters on the target device 0.\n",
    child_exit{1, std::nullopt}, 1s);
  EXPECT_EQ(denied.status, profile_status::counters_unavailable);
  EXPECT_NE(denied.note.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  EXPECT_NE(denied.note.find("==ERROR== ERR_NVGPUCTRPERM"), std::string::npos) << denied.note;

  auto killed = interpret_ncu_run(request, "", "", std::nullopt, 250ms);
  EXPECT_EQ(killed.status, profile_status::failed);
  EXPECT_NE(killed.note.find("250 ms"), std::string::npos);
  EXPECT_TRUE(killed.runner_exits) << "a kernel that hangs under ncu is not profiled again elsewhere";

  // The runner under ncu lost its context or hung (its exit codes): the kernel failed, not ncu.
  for (const int code : {5, 7}) {
    auto lost = interpret_ncu_run(request, read_text(fixture), "", child_exit{code, std::nullopt}, 1s);
    EXPECT_EQ(lost.status, profile_status::failed) << code;
    EXPECT_TRUE(lost.runner_exits) << code;
    EXPECT_NE(lost.note.find("the kernel failed under ncu"), std::string::npos) << lost.note;
  }

  auto nothing = interpret_ncu_run(request, "==WARNING== No kernels were profiled.\n", "",
                                   child_exit{0, std::nullopt}, 1s);
  EXPECT_EQ(nothing.status, profile_status::failed);
  EXPECT_NE(nothing.note.find("No kernels were profiled"), std::string::npos) << nothing.note;

  request.metrics = {"l1tex__no_such_metric.sum"};
  auto unknown = interpret_ncu_run(request, read_text(fixture), "", child_exit{0, std::nullopt}, 1s);
  EXPECT_EQ(unknown.status, profile_status::not_supported);
  EXPECT_EQ(unknown.missing.size(), 1u);
}

TEST(ncu_profile, a_stand_in_ncu_gets_the_request_file_and_its_csv_is_read) {
  scratch_dir dir{"fake"};
  ncu_options options;
  options.runner = "/opt/wf/bin/warpforge-runner";
  options.work_dir = dir.path / "work";
  options.ncu = write_script(dir.path, R"(prev=""; log=""; req=""
for a in "$@"; do
  [ "$prev" = "--log-file" ] && log="$a"
  [ "$prev" = "--execute" ] && req="$a"
  prev="$a"
done
[ -f "$req" ] || { echo "no request file at $req" >&2; exit 3; }
cp ")" + fixture.string() + R"(" "$log"
echo "the runner's own output"
)");
  auto request = sample_request();
  auto result = profile_with_ncu(request, options);
  EXPECT_EQ(result.status, profile_status::ok) << result.note;
  EXPECT_DOUBLE_EQ(result.values.at(dram), 91.37);
  auto written = decode_race_request(read_text(options.work_dir / ncu_request_file_name));
  ASSERT_TRUE(written) << written.error().detail;
  EXPECT_EQ(*written, request.run);
}

// ncu's cross-process profiling lock lives under $TMPDIR: each GPU's ncu gets its own work folder
// as TMPDIR, so the ncu of one GPU never waits for another GPU's.
TEST(ncu_profile, ncu_runs_with_its_work_folder_as_tmpdir) {
  scratch_dir dir{"tmpdir"};
  ncu_options options;
  options.runner = "/opt/wf/bin/warpforge-runner";
  options.work_dir = dir.path / "gpu3";
  options.ncu = write_script(dir.path, R"(prev=""; log=""
for a in "$@"; do
  [ "$prev" = "--log-file" ] && log="$a"
  prev="$a"
done
echo "$TMPDIR" > ")" + (dir.path / "tmpdir.txt").string() + R"("
cp ")" + fixture.string() + R"(" "$log"
)");
  auto result = profile_with_ncu(sample_request(), options);
  EXPECT_EQ(result.status, profile_status::ok) << result.note;
  EXPECT_EQ(read_text(dir.path / "tmpdir.txt"), options.work_dir.string() + "\n");
}

TEST(ncu_profile, a_stand_in_ncu_that_hangs_is_killed_at_the_timeout) {
  scratch_dir dir{"hang"};
  ncu_options options;
  options.work_dir = dir.path / "work";
  options.timeout = 300ms;
  options.ncu = write_script(dir.path, "sleep 30 & wait\n");
  auto start = std::chrono::steady_clock::now();
  auto result = profile_with_ncu(sample_request(), options);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_EQ(result.status, profile_status::failed);
  EXPECT_NE(result.note.find("killed"), std::string::npos) << result.note;
}

TEST(ncu_profile, a_missing_ncu_is_a_failed_result_not_a_crash) {
  scratch_dir dir{"missing"};
  ncu_options options;
  options.ncu = dir.path / "no-such-ncu";
  options.work_dir = dir.path / "work";
  auto result = profile_with_ncu(sample_request(), options);
  EXPECT_EQ(result.status, profile_status::failed);
  EXPECT_FALSE(result.note.empty());
}

TEST(ncu_profile, the_one_shot_runner_exits_2_for_a_bad_file_and_6_when_it_cannot_launch) {
  scratch_dir dir{"execute"};
  auto run = [&](const fs::path& file) {
    spawn_options spawn;
    spawn.executable = test::runner_path();
    spawn.arguments = {"--execute", file.string()};
    spawn.output_file = dir.path / "runner.log";
    auto child = child_process::spawn(spawn);
    EXPECT_TRUE(child) << child.error().detail;
    auto exit = child->wait_for_exit(60s);
    EXPECT_TRUE(exit) << "still running";
    return exit ? exit->exit_code : std::nullopt;
  };
  EXPECT_EQ(run(dir.path / "missing.json"), std::optional<int>{2});
  std::ofstream{dir.path / "bad.json"} << R"({"kernels":[{}]})";
  EXPECT_EQ(run(dir.path / "bad.json"), std::optional<int>{2});
  // A well-formed request whose CUBIN does not exist: no GPU here, a missing file on a GPU host.
  std::ofstream{dir.path / "good.json"} << encode_body(sample_request().run);
  EXPECT_EQ(run(dir.path / "good.json"), std::optional<int>{6});
  auto log = read_text(dir.path / "runner.log");
  EXPECT_NE(log.find("--execute"), std::string::npos) << log;
}
