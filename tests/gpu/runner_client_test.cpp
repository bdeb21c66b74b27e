#include "gpu/runner/runner_client.hpp"
#include "tests/gpu/test_paths.hpp"
#include "gpu/runtime/runner_server.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <zmq.hpp>

using namespace warpforge::gpu;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr auto quick_start = 5'000ms; // generous for a loaded 2-core CI machine
constexpr auto short_start = 300ms;   // for runners that never greet
constexpr auto short_reply = 300ms;   // for runners that never answer

runner_options fake(std::string mode, std::chrono::milliseconds start_timeout = quick_start) {
  runner_options options;
  options.executable = test::fake_runner_path();
  options.start_timeout = start_timeout;
  options.extra_env = {{"WARPFORGE_FAKE_RUNNER_MODE", std::move(mode)}};
  return options;
}

// True when `pid` is no longer a child of ours: reaped (no zombie left behind).
bool reaped(std::int64_t pid) {
  int status = 0;
  return ::waitpid(static_cast<pid_t>(pid), &status, WNOHANG) == -1 && errno == ECHILD;
}

} // namespace

TEST(runner_client, every_error_kind_round_trips_through_its_name) {
  for (auto kind : all_runner_error_kinds)
    EXPECT_EQ(runner_error_kind_from_string(to_string(kind)), kind) << to_string(kind);
  EXPECT_FALSE(runner_error_kind_from_string("oops"));
}

TEST(runner_client, locate_runner_prefers_the_environment_and_names_where_it_looked) {
  auto from_env = locate_runner(test::runner_path(), "/nowhere/warpforge");
  ASSERT_TRUE(from_env) << from_env.error().to_string();
  EXPECT_EQ(*from_env, fs::path{test::runner_path()});

  auto beside = locate_runner(std::nullopt, fs::path{test::runner_path()}.parent_path() / "x");
  ASSERT_TRUE(beside);
  EXPECT_EQ(*beside, fs::path{test::runner_path()});

  auto missing = locate_runner(std::nullopt, "/nowhere/bin/warpforge");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, runner_error_kind::not_found);
  EXPECT_NE(missing.error().detail.find("/nowhere/bin/warpforge-runner"), std::string::npos);
  EXPECT_NE(missing.error().detail.find("WARPFORGE_RUNNER"), std::string::npos);

  auto bad_env = locate_runner(std::string{"/nowhere/runner"}, test::runner_path());
  ASSERT_FALSE(bad_env);
  EXPECT_NE(bad_env.error().detail.find("/nowhere/runner"), std::string::npos);
}

TEST(runner_client, a_missing_executable_is_not_found) {
  runner_options options;
  options.executable = "/nonexistent/warpforge-runner";
  auto runner = runner_client::start(options);
  ASSERT_FALSE(runner);
  EXPECT_EQ(runner.error().kind, runner_error_kind::not_found);
}

TEST(runner_client, a_temp_root_too_long_for_ipc_is_refused_before_spawning) {
  auto options = fake("polite");
  options.temp_root = "/tmp/" + std::string(max_ipc_path_length, 'x');
  auto runner = runner_client::start(options);
  ASSERT_FALSE(runner);
  EXPECT_EQ(runner.error().kind, runner_error_kind::spawn_failed);
  EXPECT_EQ(runner.error().pid, 0);
}

TEST(runner_client, the_real_runner_answers_a_device_query_and_stops_cleanly) {
  runner_options options;
  options.executable = test::runner_path();
  auto runner = runner_client::start(options);
  ASSERT_TRUE(runner) << runner.error().to_string();
  auto socket_dir = fs::path{runner->endpoint().substr(std::string{"ipc://"}.size())}.parent_path();
  EXPECT_TRUE(fs::is_directory(socket_dir));
  EXPECT_LE(runner->endpoint().size() - std::string{"ipc://"}.size(), max_ipc_path_length);

  auto report = runner->device_query(device_query_depth::full);
  ASSERT_TRUE(report) << report.error().to_string();
  EXPECT_GE(report->runtime_version, 13000);
  if (report->status == gpu_status::ok) {
    EXPECT_GE(report->device_count, 1);
    EXPECT_EQ(report->devices.size(), static_cast<std::size_t>(report->device_count));
  } else {
    EXPECT_FALSE(report->reason.empty());
    EXPECT_TRUE(report->devices.empty());
  }
  // A second query on the same runner works too.
  EXPECT_TRUE(runner->device_query(device_query_depth::full));

  auto pid = runner->pid();
  auto exit = runner->stop();
  EXPECT_EQ(exit.exit_code, 0) << exit.to_string();
  EXPECT_TRUE(reaped(pid));
  EXPECT_FALSE(fs::exists(socket_dir)) << "the private temp dir is removed";
  EXPECT_FALSE(runner->running());
  auto after = runner->device_query(device_query_depth::full, short_reply);
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().kind, runner_error_kind::crashed);
}

// A command's GPU discovery asks for properties only: the same devices, no context opened on
// them, counter access left unknown (and said why).
TEST(runner_client, a_properties_query_names_the_same_devices_and_leaves_counters_unknown) {
  runner_options options;
  options.executable = test::runner_path();
  auto runner = runner_client::start(options);
  ASSERT_TRUE(runner) << runner.error().to_string();
  auto light = runner->device_query(device_query_depth::properties);
  auto full = runner->device_query(device_query_depth::full);
  ASSERT_TRUE(light) << light.error().to_string();
  ASSERT_TRUE(full) << full.error().to_string();
  EXPECT_EQ(light->status, full->status);
  ASSERT_EQ(light->devices.size(), full->devices.size());
  for (std::size_t i = 0; i < light->devices.size(); ++i) {
    EXPECT_EQ(light->devices[i].uuid, full->devices[i].uuid);
    EXPECT_EQ(light->devices[i].name, full->devices[i].name);
    EXPECT_EQ(light->devices[i].counters, counter_access::unknown);
    EXPECT_NE(light->devices[i].counter_reason.find("not probed"), std::string::npos)
      << light->devices[i].counter_reason;
    EXPECT_EQ(full->devices[i].counter_reason.find("not probed"), std::string::npos)
      << "a full query probes: " << full->devices[i].counter_reason;
  }
}

// The warm-up levels' words are the runner's command line: each level has one, and back.
TEST(warm_up_level, every_level_round_trips_through_its_word) {
  for (auto level : all_warm_up_levels)
    EXPECT_EQ(warm_up_level_from_string(to_string(level)), level) << to_string(level);
  EXPECT_EQ(warm_up_level_from_string("Device"), std::nullopt);
}

// --warm-up LEVEL (a campaign's GPU workers): the runner opens the device (and NVML), and CUPTI's
// profiler only when asked, after its hello; says so in its log, and then serves. Without a GPU it
// says why and serves all the same.
TEST(runner_client, a_warmed_up_runner_logs_what_it_opened_and_then_serves) {
  for (const auto level : {warm_up_level::device, warm_up_level::profiler}) {
    SCOPED_TRACE(std::string{to_string(level)});
    runner_options options;
    options.executable = test::runner_path();
    options.warm_up = level;
    auto runner = runner_client::start(options);
    ASSERT_TRUE(runner) << runner.error().to_string();
    auto report = runner->device_query(device_query_depth::full); // answered after the warm-up
    ASSERT_TRUE(report) << report.error().to_string();
    std::ifstream log{runner->log_path()};
    std::string text{std::istreambuf_iterator<char>{log}, {}};
    const auto line = text.find("warm-up: ");
    ASSERT_NE(line, std::string::npos) << text;
    const auto said = text.substr(line, text.find('\n', line) - line);
    if (report->status == gpu_status::ok) { // the profiler part may still fail where counters are restricted
      EXPECT_NE(said.find("warm-up: device "), std::string::npos) << said;
      EXPECT_NE(said.find(", NVML "), std::string::npos) << said;
      EXPECT_EQ(said.find("profiler") != std::string::npos, level == warm_up_level::profiler) << said;
    } else {
      EXPECT_NE(said.find("the device did not open: "), std::string::npos) << "the reason, without a GPU: " << said;
    }
    EXPECT_EQ(runner->stop().exit_code, 0);
  }
}

TEST(runner_client, the_runner_sees_the_visible_devices_it_was_given) {
  runner_options options;
  options.executable = test::runner_path();
  options.visible_devices = "0";
  auto runner = runner_client::start(options);
  ASSERT_TRUE(runner) << runner.error().to_string();
  auto report = runner->device_query(device_query_depth::full);
  ASSERT_TRUE(report) << report.error().to_string();
  EXPECT_EQ(report->visible_devices, std::optional<std::string>{"0"});
  EXPECT_LE(report->device_count, 1);
}

TEST(runner_client, a_runner_that_never_greets_is_a_start_timeout_and_is_killed_and_reaped) {
  auto runner = runner_client::start(fake("hang_on_start", short_start));
  ASSERT_FALSE(runner);
  const auto& e = runner.error();
  EXPECT_EQ(e.kind, runner_error_kind::start_timeout) << e.to_string();
  EXPECT_GT(e.pid, 0);
  EXPECT_EQ(e.signal, SIGKILL);
  EXPECT_TRUE(reaped(e.pid));
  EXPECT_NE(e.log_tail.find("mode hang_on_start"), std::string::npos) << e.log_tail;
}

TEST(runner_client, a_runner_that_exits_on_start_is_crashed_with_its_exit_code_and_output) {
  auto runner = runner_client::start(fake("exit_on_start"));
  ASSERT_FALSE(runner);
  const auto& e = runner.error();
  EXPECT_EQ(e.kind, runner_error_kind::crashed) << e.to_string();
  EXPECT_EQ(e.exit_code, 42);
  EXPECT_FALSE(e.signal);
  EXPECT_TRUE(reaped(e.pid));
  EXPECT_NE(e.log_tail.find("exiting on start as asked"), std::string::npos) << e.log_tail;
  EXPECT_NE(e.to_string().find("exit code 42"), std::string::npos) << e.to_string();
}

TEST(runner_client, a_garbage_hello_is_a_protocol_error) {
  auto runner = runner_client::start(fake("garbage_hello"));
  ASSERT_FALSE(runner);
  EXPECT_EQ(runner.error().kind, runner_error_kind::protocol_error) << runner.error().to_string();
  EXPECT_TRUE(reaped(runner.error().pid));
}

TEST(runner_client, a_runner_that_never_answers_is_a_reply_timeout_and_is_killed_and_reaped) {
  auto runner = runner_client::start(fake("hang_on_request"));
  ASSERT_TRUE(runner) << runner.error().to_string();
  auto pid = runner->pid();
  auto report = runner->device_query(device_query_depth::full, short_reply);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().kind, runner_error_kind::reply_timeout) << report.error().to_string();
  EXPECT_EQ(report.error().signal, SIGKILL);
  EXPECT_EQ(report.error().pid, pid);
  EXPECT_TRUE(reaped(pid));
  EXPECT_FALSE(runner->running());
}

TEST(runner_client, a_runner_that_ignores_shutdown_is_killed_after_the_grace) {
  auto runner = runner_client::start(fake("hang_on_request"));
  ASSERT_TRUE(runner) << runner.error().to_string();
  auto pid = runner->pid();
  auto exit = runner->stop(short_reply);
  EXPECT_EQ(exit.signal, SIGKILL) << exit.to_string();
  EXPECT_TRUE(reaped(pid));
}

TEST(runner_client, a_runner_that_dies_mid_request_is_crashed_with_its_signal) {
  auto runner = runner_client::start(fake("abort_mid_request"));
  ASSERT_TRUE(runner) << runner.error().to_string();
  auto pid = runner->pid();
  auto report = runner->device_query(device_query_depth::full);
  ASSERT_FALSE(report);
  const auto& e = report.error();
  EXPECT_EQ(e.kind, runner_error_kind::crashed) << e.to_string();
  EXPECT_EQ(e.signal, SIGABRT);
  EXPECT_NE(e.log_tail.find("aborting mid-request"), std::string::npos) << e.log_tail;
  EXPECT_TRUE(reaped(pid));
}

TEST(runner_client, a_garbage_reply_is_a_protocol_error) {
  auto runner = runner_client::start(fake("garbage_reply"));
  ASSERT_TRUE(runner) << runner.error().to_string();
  auto report = runner->device_query(device_query_depth::full);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().kind, runner_error_kind::protocol_error) << report.error().to_string();
  EXPECT_NE(report.error().detail.find("not JSON"), std::string::npos);
}

TEST(runner_client, a_failed_reply_is_request_failed) {
  auto runner = runner_client::start(fake("failed_reply"));
  ASSERT_TRUE(runner) << runner.error().to_string();
  auto reply = runner->request(runner_request_kind::hello, "{}", quick_start);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().kind, runner_error_kind::request_failed);
  EXPECT_NE(reply.error().detail.find("fake runner says no"), std::string::npos);
}

TEST(runner_client, a_reply_for_another_id_is_skipped) {
  auto runner = runner_client::start(fake("stale_then_reply"));
  ASSERT_TRUE(runner) << runner.error().to_string();
  auto reply = runner->request(runner_request_kind::hello, "{}", quick_start);
  ASSERT_TRUE(reply) << reply.error().to_string();
  EXPECT_EQ(reply->status, runner_reply_status::ok);
  EXPECT_EQ(reply->id, 1u);
}

TEST(runner_client, a_polite_runner_exits_zero_on_stop_and_the_destructor_is_safe_after) {
  auto runner = runner_client::start(fake("polite"));
  ASSERT_TRUE(runner) << runner.error().to_string();
  auto exit = runner->stop();
  EXPECT_EQ(exit.exit_code, 0) << exit.to_string();
  EXPECT_EQ(runner->stop(), exit) << "stop is idempotent";
}

TEST(runner_client, the_destructor_stops_and_reaps_the_runner) {
  std::int64_t pid = 0;
  {
    auto runner = runner_client::start(fake("hang_on_request"));
    ASSERT_TRUE(runner) << runner.error().to_string();
    pid = runner->pid();
  }
  EXPECT_TRUE(reaped(pid));
}

TEST(runner_client, the_real_runner_exits_when_its_parent_disappears) {
  // Orphans are re-parented to us (a subreaper), so we can reap the runner and read its exit.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  std::string pattern = (fs::temp_directory_path() / "wf-orphan-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  fs::path dir{pattern};
  auto pid_file = dir / "runner.pid";
  auto fifo = dir / "release";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto endpoint = "ipc://" + (dir / "s").string();
  zmq::context_t context;
  zmq::socket_t socket{context, zmq::socket_type::dealer};
  socket.set(zmq::sockopt::linger, 0);
  socket.bind(endpoint);

  // The shell is the runner's parent; it exits once we write to the fifo, orphaning the runner.
  auto script = "\"" + test::runner_path() + "\" --endpoint " + endpoint +
                " --parent-pid $$ & echo $! > " + pid_file.string() + "; read line < " +
                fifo.string();
  spawn_options options;
  options.executable = "/bin/sh";
  options.arguments = {"-c", script};
  options.output_file = dir / "out.log";
  auto shell = child_process::spawn(options);
  ASSERT_TRUE(shell) << shell.error().detail;

  // The hello proves the runner is up, its watchdog running, with the shell as parent.
  zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
  ASSERT_EQ(zmq::poll(&item, 1, quick_start), 1) << "no hello from the runner";
  std::ofstream{fifo} << "go\n";
  auto shell_exit = shell->wait_for_exit(quick_start);
  ASSERT_TRUE(shell_exit);
  pid_t runner_pid = 0;
  std::ifstream{pid_file} >> runner_pid;
  ASSERT_GT(runner_pid, 0);

  int status = 0;
  pid_t waited = 0;
  auto deadline = std::chrono::steady_clock::now() + quick_start;
  while ((waited = ::waitpid(runner_pid, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(child_poll_interval);
  if (waited == 0) {
    ::kill(runner_pid, SIGKILL);
    ::waitpid(runner_pid, &status, 0);
    FAIL() << "the orphaned runner was still running after " << quick_start.count() << " ms";
  }
  ASSERT_EQ(waited, runner_pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), runner_exit_parent_gone);
  std::ifstream log{dir / "out.log"};
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("is gone; exiting"), std::string::npos) << text;
  fs::remove_all(dir);
}
