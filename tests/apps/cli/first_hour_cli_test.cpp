// Issue 28, "A newcomer's first hour": the command line is the same everywhere, through the real
// binary (campaigns on the stand-in GPUs, tests/gpu/fake_runner.cpp). A run is named the same
// way by every command that reads one (a positional run directory, or --run-dir); --json gives
// one JSON object on stdout naming the run directory and the outcome; --quiet leaves only
// warnings and errors; errors name the problem in words, without the libraries' identifiers;
// bare `warpforge` helps, and --version says what was built.

#include "campaign_fixture.hpp"

#include <caf/config.hpp>
#include <simdjson.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include <regex>

namespace warpforge::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr auto command_deadline = 120s;
constexpr auto calibrate_deadline = 300s; // builds a benchmark with nvcc on a small host

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

// A log line as foundation/logging/ writes it: "2026-11-27 09:16:06.411 info  [campaign] ...".
bool has_info_line(const std::string& text) {
  static const std::regex info{R"(^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} info )"};
  for (const auto& line : lines_of(text))
    if (std::regex_search(line, info))
      return true;
  return false;
}

// Names the libraries use and a person should not have to read.
void expect_no_internal_names(const std::string& text) {
  for (const char* name : {"not_a_run_directory", "run_directory::open", "bad_endpoint", "cannot_open", "::"})
    EXPECT_EQ(text.find(name), std::string::npos) << "'" << name << "' in: " << text;
}

// A TCP port on 127.0.0.1 that nothing listens on now (bound to port 0, then closed).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

class FirstHour : public campaign_fixture {
protected:
  // Runs `warpforge <args>` on the stand-in GPUs to its end; stdout in `name`.out, stderr in
  // `name`.err; its exit code.
  int warpforge(std::vector<std::string> args, const std::string& name,
                std::chrono::milliseconds deadline = command_deadline) {
    const pid_t pid = spawn(WARPFORGE_BIN, std::move(args),
                            {"WARPFORGE_RUNNER=" WARPFORGE_FAKE_RUNNER_PATH, "WARPFORGE_FAKE_RUNNER_MODE=campaign",
                             "WARPFORGE_LOCK_DIR=" + (dir / "locks").string()},
                            name + ".out", name + ".err");
    if (pid <= 0)
      return -1; // not started (said by spawn); waiting on pid 0 would wait on the whole group
    const auto code = wait_exit_within(pid, deadline);
    EXPECT_TRUE(code) << "warpforge " << name << " did not end within " << deadline.count() << " ms";
    return code.value_or(-1);
  }

  std::string out(const std::string& name) { return text_of(name + ".out"); }
  std::string err(const std::string& name) { return text_of(name + ".err"); }

  // A finished campaign of one iteration; its run directory.
  fs::path finished_run() {
    EXPECT_EQ(warpforge({"run", write_campaign(1).string()}, "setup"), 0) << err("setup");
    return run_dir();
  }

  // A folder that exists and is not a run directory.
  fs::path not_a_run() {
    const auto folder = dir / "just-a-folder";
    fs::create_directories(folder);
    return folder;
  }
};

TEST_F(FirstHour, BareWarpforgePrintsTheCommandsAndExitsZero) {
  ASSERT_EQ(warpforge({}, "bare"), 0) << err("bare");
  const auto help = out("bare");
  for (const char* command : {"run", "resume", "status", "report", "tail", "dashboard", "calibrate", "doctor"})
    EXPECT_TRUE(std::regex_search(help, std::regex{std::string{"\\n\\s+"} + command + "\\s"}))
      << command << " is not listed in:\n" << help;
  EXPECT_EQ(err("bare").find("RequiredError"), std::string::npos) << err("bare");
}

TEST_F(FirstHour, VersionNamesCommitBuildTypeCudaToolkitAndCaf) {
  ASSERT_EQ(warpforge({"--version"}, "version"), 0) << err("version");
  const auto lines = lines_of(out("version"));
  ASSERT_EQ(lines.size(), 5u) << out("version");
  EXPECT_TRUE(std::regex_match(lines[0], std::regex{R"(warpforge \d+\.\d+\.\d+)"})) << lines[0];
  // git describe --always --dirty: an abbreviated hash, perhaps after a tag, perhaps -dirty.
  EXPECT_TRUE(std::regex_match(lines[1], std::regex{R"(commit (unknown|([\w.-]+-g)?[0-9a-f]{7,40}(-dirty)?))"}))
    << lines[1];
  EXPECT_TRUE(std::regex_match(lines[2], std::regex{R"(build type \S.*)"})) << lines[2];
  EXPECT_TRUE(std::regex_match(lines[3], std::regex{R"(CUDA toolkit \d+\.\d+(\.\d+)?)"})) << lines[3];
  // The CAF this test is built against is the one the binary was.
  const std::string caf = std::to_string(CAF_VERSION / 10000) + "." + std::to_string(CAF_VERSION / 100 % 100) + "." +
                          std::to_string(CAF_VERSION % 100);
  EXPECT_EQ(lines[4], "CAF " + caf);
}

TEST_F(FirstHour, QuietRunPrintsNoInfoLine) {
  // The same campaign without --quiet does print info lines: the check below can fail.
  ASSERT_EQ(warpforge({"run", write_campaign(1).string()}, "loud"), 0) << err("loud");
  ASSERT_TRUE(has_info_line(err("loud"))) << err("loud");

  fs::remove_all(dir / "runs");
  ASSERT_EQ(warpforge({"run", "--quiet", write_campaign(1).string()}, "quiet"), 0) << err("quiet");
  const auto all = out("quiet") + err("quiet");
  EXPECT_FALSE(has_info_line(all)) << all;
  EXPECT_EQ(all.find("warpforge run: fake-gpus"), std::string::npos) << "the banner is not a warning:\n" << all;
  // It did run: the run directory and its full log are there (the log keeps the info lines).
  ASSERT_FALSE(run_dir().empty());
  EXPECT_TRUE(has_info_line(text_of("runs/" + run_dir().filename().string() + "/logs/warpforge.log")));
}

TEST_F(FirstHour, QuietDiagnoseAndProgramPrintNoInfoLine) {
  const std::string problem = WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml";
  const std::string program = WARPFORGE_SOURCE_DIR "/examples/d2d_copy/copy.cu";
  const std::string root = (dir / "runs").string();
  // Whatever they measure here, --quiet leaves no info line; without it there are some.
  warpforge({"diagnose", problem, "--run-root", root}, "diagnose-loud");
  ASSERT_TRUE(has_info_line(err("diagnose-loud"))) << err("diagnose-loud");
  warpforge({"diagnose", "--quiet", problem, "--run-root", root}, "diagnose");
  EXPECT_FALSE(has_info_line(out("diagnose") + err("diagnose"))) << err("diagnose");
  warpforge({"program", "--quiet", program, "--trials", "1", "--run-root", root}, "program");
  EXPECT_FALSE(has_info_line(out("program") + err("program"))) << err("program");
}

TEST_F(FirstHour, RunJsonPrintsOneObjectNamingTheRunDirectoryAndTheOutcome) {
  ASSERT_EQ(warpforge({"run", "--json", write_campaign(1).string()}, "run"), 0) << err("run");
  simdjson::dom::parser parser;
  simdjson::dom::element result;
  ASSERT_EQ(parser.parse(out("run")).get(result), simdjson::SUCCESS) << "stdout is not one JSON object:\n" << out("run");
  EXPECT_EQ(std::string_view{result["command"]}, "run");
  EXPECT_EQ(std::string_view{result["outcome"]}, "finished");
  EXPECT_EQ(std::int64_t{result["exit_code"]}, 0);
  ASSERT_FALSE(run_dir().empty());
  EXPECT_EQ(fs::path{std::string{std::string_view{result["run_dir"]}}}, fs::absolute(run_dir()));
  // A spec that does not load: no run directory, and the object still comes.
  std::ofstream{dir / "broken.toml"} << "name = 1\n";
  ASSERT_EQ(warpforge({"run", "--json", (dir / "broken.toml").string()}, "broken"), 3) << err("broken");
  simdjson::dom::element broken;
  ASSERT_EQ(parser.parse(out("broken")).get(broken), simdjson::SUCCESS) << out("broken");
  EXPECT_TRUE(broken["run_dir"].is_null());
  EXPECT_EQ(std::string_view{broken["outcome"]}, "bad_input");
  // The human text is still there, on stderr (the headline included).
  EXPECT_NE(err("run").find("## Headline"), std::string::npos) << err("run");
  EXPECT_NE(err("run").find("warpforge: finished"), std::string::npos) << err("run");
}

TEST_F(FirstHour, ResumeJsonOfAFinishedRunSaysSoOnStdout) {
  const auto run = finished_run();
  ASSERT_EQ(warpforge({"resume", "--json", "--quiet", run.string()}, "resume"), 0) << err("resume");
  simdjson::dom::parser parser;
  simdjson::dom::element result;
  ASSERT_EQ(parser.parse(out("resume")).get(result), simdjson::SUCCESS) << out("resume");
  EXPECT_EQ(std::string_view{result["command"]}, "resume");
  EXPECT_EQ(std::string_view{result["outcome"]}, "finished");
}

TEST_F(FirstHour, CalibrateTakesQuietAndJson) {
  // Without --quiet its log's info lines are on the terminal: the check below can fail.
  const std::vector<std::string> slice{"--only", "fp32_fma_latency", "--trials", "1", "--run-root", (dir / "runs").string()};
  std::vector<std::string> loud{"calibrate"};
  loud.insert(loud.end(), slice.begin(), slice.end());
  const int loud_code = warpforge(loud, "loud", calibrate_deadline);
  ASSERT_TRUE(loud_code == 0 || loud_code == 5) << loud_code << ": " << err("loud");
  ASSERT_TRUE(has_info_line(out("loud") + err("loud"))) << err("loud");

  // Without a GPU the benchmark is built, not measured (exit 5, outcome no_gpu); with one it is
  // measured (0, finished). Either way: one object naming the run directory, no info line.
  std::vector<std::string> quiet{"calibrate", "--quiet", "--json"};
  quiet.insert(quiet.end(), slice.begin(), slice.end());
  const int code = warpforge(quiet, "calibrate", calibrate_deadline);
  ASSERT_TRUE(code == 0 || code == 5) << code << ": " << err("calibrate");
  simdjson::dom::parser parser;
  simdjson::dom::element result;
  ASSERT_EQ(parser.parse(out("calibrate")).get(result), simdjson::SUCCESS) << out("calibrate");
  EXPECT_EQ(std::string_view{result["command"]}, "calibrate");
  EXPECT_EQ(std::string_view{result["outcome"]}, code == 0 ? "finished" : "no_gpu");
  EXPECT_EQ(std::int64_t{result["exit_code"]}, code);
  const fs::path recorded{std::string{std::string_view{result["run_dir"]}}};
  EXPECT_TRUE(fs::exists(recorded / "warpforge.db")) << recorded;
  EXPECT_FALSE(has_info_line(out("calibrate") + err("calibrate"))) << err("calibrate");
}

TEST_F(FirstHour, ReportJsonIsFormatJson) {
  const auto run = finished_run();
  ASSERT_EQ(warpforge({"report", "--format", "json", run.string()}, "format"), 0) << err("format");
  ASSERT_EQ(warpforge({"report", "--json", run.string()}, "json"), 0) << err("json");
  EXPECT_FALSE(out("json").empty());
  EXPECT_EQ(out("json"), out("format"));
  EXPECT_EQ(warpforge({"report", "--json", "--format", "csv", run.string()}, "both"), 2) << "contradictory flags";
}

TEST_F(FirstHour, EveryCommandTakesTheRunDirectoryBothWays) {
  const auto run = finished_run().string();
  for (const char* command : {"status", "report"}) {
    const std::string name{command};
    ASSERT_EQ(warpforge({command, run}, name + "-positional"), 0) << err(name + "-positional");
    ASSERT_EQ(warpforge({command, "--run-dir", run}, name + "-option"), 0) << err(name + "-option");
    EXPECT_EQ(out(name + "-positional"), out(name + "-option")) << command;
  }
  // resume: a finished run has nothing to resume, whichever way it is named.
  for (const char* form : {"positional", "option"}) {
    std::vector<std::string> args{"resume"};
    if (std::string_view{form} == "option")
      args.emplace_back("--run-dir");
    args.push_back(run);
    ASSERT_EQ(warpforge(args, std::string{"resume-"} + form), 0) << err(std::string{"resume-"} + form);
    EXPECT_NE(err(std::string{"resume-"} + form).find("nothing to resume"), std::string::npos);
  }
  // tail: a positional run directory replays that run, to its end (nobody runs it any more).
  ASSERT_EQ(warpforge({"tail", "--json", run}, "tail-positional"), 0) << err("tail-positional");
  ASSERT_EQ(warpforge({"tail", "--json", "--run-dir", run}, "tail-option"), 0) << err("tail-option");
  EXPECT_NE(out("tail-positional").find("\"campaign_finished\""), std::string::npos) << out("tail-positional");
  EXPECT_EQ(out("tail-positional"), out("tail-option"));
}

TEST_F(FirstHour, TailOfARunDirectoryFollowsThatRunLiveToItsEnd) {
  // A campaign slowed by its stand-in GPUs (120 ms a kernel), followed while it runs.
  const pid_t campaign = start({"run", "--quiet", write_campaign(3).string()}, 120);
  ASSERT_TRUE(wait_for("SELECT count(*) FROM measurements", 1)) << stderr_text();
  ASSERT_TRUE(fs::exists(run_dir() / "feed.endpoint"));
  const int tail_code = warpforge({"tail", "--json", run_dir().string()}, "tail");
  EXPECT_EQ(wait_exit(campaign), 0) << stderr_text();
  ASSERT_EQ(tail_code, 0) << err("tail");
  // Every event the campaign stored, each once, to its end: the store's part and the feed's.
  const auto shown = lines_of(out("tail"));
  EXPECT_EQ(static_cast<std::int64_t>(shown.size()), count("SELECT count(*) FROM events")) << out("tail");
  ASSERT_FALSE(shown.empty());
  EXPECT_NE(shown.back().find("\"campaign_finished\""), std::string::npos) << shown.back();
}

TEST_F(FirstHour, DashboardTakesAPositionalRunDirectory) {
  const auto run = finished_run();
  const pid_t pid = spawn(WARPFORGE_BIN, {"dashboard", run.string(), "--listen", "127.0.0.1:0"}, {},
                          "dashboard.out", "dashboard.err");
  ASSERT_GT(pid, 0);
  std::string printed;
  for (auto deadline = std::chrono::steady_clock::now() + 30s;
       std::chrono::steady_clock::now() < deadline && printed.find('\n') == std::string::npos;
       std::this_thread::sleep_for(20ms))
    printed = out("dashboard");
  ::kill(pid, SIGTERM);
  EXPECT_TRUE(wait_exit_within(pid, 30s));
  EXPECT_NE(printed.find("run directory " + run.string()), std::string::npos) << printed << err("dashboard");
}

TEST_F(FirstHour, TailOfAnEndpointNobodyAnswersSaysSoAfterItsWait) {
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(free_port());
  const auto started = std::chrono::steady_clock::now();
  ASSERT_EQ(warpforge({"tail", endpoint, "--wait-for-feed", "1"}, "tail", 30s), 1) << err("tail");
  EXPECT_GE(std::chrono::steady_clock::now() - started, 1s);
  EXPECT_NE(err("tail").find("nothing answered at " + endpoint + " within 1 s"), std::string::npos) << err("tail");
}

TEST_F(FirstHour, TailOfARunWhoseCampaignDiedSaysItIsNotRunning) {
  const pid_t campaign = start({"run", "--quiet", write_campaign(4).string()}, 120);
  ASSERT_TRUE(wait_for("SELECT count(*) FROM measurements", 1)) << stderr_text();
  ::kill(campaign, SIGKILL); // no end event, nobody publishing at its feed.endpoint any more
  wait_exit(campaign);
  EXPECT_EQ(warpforge({"tail", "--log", run_dir().string(), "--wait-for-feed", "1"}, "tail", 30s), 1) << err("tail");
  EXPECT_NE(out("tail").find("campaign_started"), std::string::npos) << "the stored events come first:\n" << out("tail");
  EXPECT_NE(err("tail").find("the run's campaign is not running (warpforge status " + run_dir().string()),
            std::string::npos)
    << err("tail");
}

TEST_F(FirstHour, ErrorsNameTheProblemWithoutInternalNames) {
  const auto folder = not_a_run().string();
  for (const char* command : {"status", "report", "resume", "tail", "deploy"}) {
    const std::string name{command};
    const int code = warpforge({command, folder}, name);
    EXPECT_EQ(code, 3) << command << ": " << err(name);
    EXPECT_NE(err(name).find(folder + " is not a run directory"), std::string::npos) << command << ": " << err(name);
    EXPECT_NE(err(name).find("warpforge run"), std::string::npos) << command << " says what a run directory is: "
                                                                  << err(name);
    expect_no_internal_names(err(name));
  }
  EXPECT_EQ(warpforge({"dashboard", folder, "--listen", "127.0.0.1:0"}, "dashboard"), 3) << err("dashboard");
  EXPECT_NE(err("dashboard").find(folder + " is not a run directory"), std::string::npos) << err("dashboard");
  expect_no_internal_names(err("dashboard"));

  // A path that is not there at all is said so.
  const auto nowhere = (dir / "no-such-run").string();
  EXPECT_EQ(warpforge({"status", nowhere}, "nowhere"), 3);
  EXPECT_NE(err("nowhere").find(nowhere + " does not exist"), std::string::npos) << err("nowhere");
  expect_no_internal_names(err("nowhere"));
}

} // namespace
} // namespace warpforge::testing
