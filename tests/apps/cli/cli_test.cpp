// The `warpforge` command line as a user meets it: the real binary, real files, real sockets.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

struct outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& file) {
  std::ifstream in{file};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class Cli : public ::testing::Test {
protected:
  fs::path dir;

  void SetUp() override {
    dir = fs::temp_directory_path()
          / ("wf-cli-" + std::to_string(::getpid()) + "-"
             + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  // Runs `warpforge <args>` (args are shell words) with stdout and stderr kept apart; `env` is
  // put in front ("NAME=value ...").
  outcome warpforge(const std::string& args, const std::string& env = {}) {
    const auto out = dir / "stdout.txt";
    const auto err = dir / "stderr.txt";
    const std::string command = env + " " + std::string{WARPFORGE_BIN} + " " + args + " >" + out.string()
                                + " 2>" + err.string() + " </dev/null";
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(out), slurp(err)};
  }

  // A campaign over the vector-add example whose runs land in this test's folder and whose feed
  // takes a free port (tests run in parallel).
  fs::path write_campaign(const std::string& extra = {}) {
    const auto file = dir / "campaign.toml";
    std::ofstream out{file};
    out << "name = \"cli-test\"\n"
        << "run_root = \"" << (dir / "runs").string() << "\"\n"
        << extra
        << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml\"\n"
        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
    return file;
  }

  fs::path only_run_dir() {
    std::vector<fs::path> runs;
    for (const auto& entry : fs::directory_iterator{dir / "runs"})
      runs.push_back(entry.path());
    EXPECT_EQ(runs.size(), 1u);
    return runs.empty() ? fs::path{} : runs.front();
  }
};

TEST_F(Cli, AMalformedCampaignIsRejectedWithFileLineAndKeyAndNothingStarts) {
  const auto file = dir / "broken.toml";
  std::ofstream{file} << "name = \"x\"\n[budget]\nbranches = \"four\"\n[[jobs]]\nproblem = \"missing.toml\"\n";
  auto r = warpforge("run " + file.string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find(file.string() + ":3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("budget.branches"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("missing.toml"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "runs"));

  auto missing = warpforge("run " + (dir / "missing.toml").string());
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_NE(missing.err.find((dir / "missing.toml").string() + ": cannot read"), std::string::npos)
    << missing.err;
}

TEST_F(Cli, RunWithoutAGpuCompilesEveryJobThenSaysMeasurementsNeedOne) {
  auto r = warpforge("run " + write_campaign().string());
  if (r.exit_code != 5)
    GTEST_SKIP() << "this host has a GPU: the campaign measured (exit " << r.exit_code << ")";
  EXPECT_NE(r.err.find("measurements need a GPU"), std::string::npos) << r.err;
  const auto run_dir = only_run_dir();
  EXPECT_TRUE(fs::exists(run_dir / "summary.md"));
  EXPECT_TRUE(fs::exists(run_dir / "jobs" / "vector_add" / "iter-1" / "branch-0" / "kernel-sm_90.cubin"));

  auto status = warpforge("status --json " + run_dir.string());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  simdjson::dom::parser parser;
  auto doc = parser.parse(status.out);
  ASSERT_FALSE(doc.error()) << status.out;
  EXPECT_EQ(std::string_view{doc["campaign"]["name"].get_string().value()}, "cli-test");
  EXPECT_EQ(std::string_view{doc["campaign"]["state"].get_string().value()}, "failed");
  EXPECT_EQ(doc["jobs"].get_array().value().size(), 1u);
  EXPECT_GE(doc["last_event_seq"].get_int64().value(), 5);

  // A monitor that arrives after the fact replays everything from the store, in order.
  auto tail = warpforge("tail --json --run-dir " + run_dir.string() + " --idle-timeout 0.2");
  ASSERT_EQ(tail.exit_code, 0) << tail.err;
  std::istringstream lines{tail.out};
  std::vector<std::string> types;
  std::int64_t last_seq = 0;
  for (std::string line; std::getline(lines, line);) {
    auto e = parser.parse(line);
    ASSERT_FALSE(e.error()) << line;
    EXPECT_EQ(e["schema"].get_int64().value(), 1);
    EXPECT_GT(e["seq"].get_int64().value(), last_seq);
    last_seq = e["seq"].get_int64().value();
    types.emplace_back(e["type"].get_string().value());
  }
  ASSERT_FALSE(types.empty());
  EXPECT_EQ(types.back(), "campaign_failed");
  EXPECT_NE(std::find(types.begin(), types.end(), "campaign_started"), types.end());
  EXPECT_NE(std::find(types.begin(), types.end(), "branch_compiled"), types.end());

  // --from-seq skips what the monitor already has.
  auto later = warpforge("tail --json --run-dir " + run_dir.string() + " --from-seq "
                         + std::to_string(last_seq - 1) + " --idle-timeout 0.2");
  EXPECT_EQ(std::count(later.out.begin(), later.out.end(), '\n'), 1) << later.out;

  EXPECT_NE(slurp(run_dir / "logs" / "warpforge.log").find("[store] opened"), std::string::npos);
}

TEST_F(Cli, AnUnknownCommandIsNamedWithTheCommandsThereAre) {
  auto r = warpforge("frob");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("warpforge: unknown command 'frob'; the commands are run, resume, status"), std::string::npos)
    << r.err;
}

TEST_F(Cli, HelpShowsEachOptionsDefault) {
  auto r = warpforge("bench --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--gpus TEXT=all"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--watchdog FLOAT=120"), std::string::npos) << r.out;
}

TEST_F(Cli, AFeedPortAlreadyTakenIsSaidAtOnceAndNothingIsCreated) {
  // Occupy a loopback port the way another program would.
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const auto endpoint = "tcp://127.0.0.1:" + std::to_string(ntohs(address.sin_port));

  const auto file = dir / "campaign.toml";
  std::ofstream{file} << "name = \"busy\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                      << "[[jobs]]\nproblem = \"" WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml\"\n"
                      << "[feed]\nendpoint = \"" << endpoint << "\"\n"
                      << "[supervision]\nmax_restarts = 1\nbackoff_initial_ms = 1\nbackoff_max_ms = 1\n";
  auto r = warpforge("run " + file.string());
  ::close(listener);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("warpforge run: the feed cannot bind " + endpoint + ": address in use (another campaign?)"),
            std::string::npos)
    << "says why at once, before any restart: " << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "runs")) << "nothing was created";
}

TEST_F(Cli, BenchCompilesAndRecordsAndWithoutAGpuSaysMeasurementsNeedOne) {
  auto r = warpforge("bench " WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml --run-root "
                     + (dir / "runs").string());
  const auto run_dir = only_run_dir();
  auto tail = warpforge("tail --json --run-dir " + run_dir.string() + " --idle-timeout 0.2");
  EXPECT_NE(tail.out.find("\"type\":\"branch_compiled\""), std::string::npos) << tail.out;
  if (r.exit_code == 5) {
    EXPECT_NE(r.err.find("measurements need a GPU"), std::string::npos) << r.err;
  } else {
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err; // a GPU host: measured and correct
    EXPECT_NE(tail.out.find("\"type\":\"branch_measured\""), std::string::npos) << tail.out;
  }
}

TEST_F(Cli, DiagnoseWithoutADisassemblerDoesNotClaimToHaveReadTheSass) {
  // A toolkit folder without nvdisasm or cuobjdump, and a PATH without them: NVRTC still
  // compiles (it is linked), the SASS cannot be read.
  auto r = warpforge("diagnose " WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml --run-root " +
                     (dir / "runs").string(), "CUDA_HOME=" + (dir / "no-toolkit").string() + " PATH=/usr/bin:/bin");
  EXPECT_NE(r.out.find("no disassembly here"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.out.find("its SASS read"), std::string::npos) << r.out;
}

TEST_F(Cli, ProgramJsonIsOneObjectWithEachGpusResultsOrWhyThereAreNone) {
  auto r = warpforge("program " WARPFORGE_SOURCE_DIR "/examples/d2d_copy/copy.cu --json --trials 1 --run-root " +
                     (dir / "runs").string());
  simdjson::dom::parser parser;
  auto doc = parser.parse(r.out);
  ASSERT_FALSE(doc.error()) << "stdout is one JSON object: " << r.out << r.err;
  EXPECT_EQ(std::string{doc["program"].get_string().value()}, WARPFORGE_SOURCE_DIR "/examples/d2d_copy/copy.cu");
  if (r.exit_code == 5) {
    EXPECT_EQ(doc["gpus"].get_array().size(), 0u);
    EXPECT_FALSE(doc["no_gpu"].error()) << "says why nothing ran: " << r.out;
  } else {
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err; // a GPU host: every trial passed
    for (auto g : doc["gpus"].get_array())
      EXPECT_EQ(g["passed"].get_int64().value(), 1);
  }
}

TEST_F(Cli, BenchReportsACandidateThatDoesNotCompileWithTheCompilersLine) {
  const auto broken = dir / "broken.cu";
  std::ofstream{broken} << "extern \"C\" __global__ void vec_add(const float* a) {\n  oops;\n}\n";
  auto r = warpforge("bench " WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml --candidate "
                     + broken.string() + " --run-root " + (dir / "runs").string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("compile_error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("broken.cu(2)"), std::string::npos) << "names the line: " << r.out;
}

TEST_F(Cli, DiagnoseCompilesReadsTheSassAndWithoutAGpuSaysMetricsNeedOne) {
  auto r = warpforge("diagnose " WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml --run-root "
                     + (dir / "runs").string());
  const auto run_dir = only_run_dir();
  EXPECT_NE(r.out.find("Compile (sm_"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("SASS (sm_"), std::string::npos) << r.out;
  auto tail = warpforge("tail --json --run-dir " + run_dir.string() + " --idle-timeout 0.2");
  EXPECT_NE(tail.out.find("\"type\":\"branch_compiled\""), std::string::npos) << tail.out;
  EXPECT_TRUE(fs::exists(run_dir / "warpforge.db"));
  if (r.exit_code == 5) {
    EXPECT_NE(r.out.find("metrics need a GPU"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("Metric source"), std::string::npos) << "no numbers without a GPU: " << r.out;
    EXPECT_EQ(r.out.find("Check: passed"), std::string::npos) << "nothing ran, nothing passed: " << r.out;
    const bool disassembled = r.out.find("SASS-checkable catalog methods present") != std::string::npos;
    EXPECT_TRUE(disassembled || r.out.find("is unavailable, neither present nor absent") != std::string::npos) << r.out;
    EXPECT_NE(tail.out.find("\"type\":\"branch_failed\""), std::string::npos) << tail.out;
    EXPECT_NE(tail.out.find("\"outcome\":\"not_run\""), std::string::npos) << tail.out;
    auto status = warpforge("status --json " + run_dir.string());
    ASSERT_EQ(status.exit_code, 0) << status.err;
    simdjson::dom::parser parser;
    auto doc = parser.parse(status.out);
    ASSERT_FALSE(doc.error()) << status.out;
    EXPECT_EQ(std::string_view{doc["campaign"]["state"].get_string().value()}, "failed");
  } else {
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err; // a GPU host: checked, timed, profiled, diagnosed
    EXPECT_NE(r.out.find("Achieved DRAM bandwidth"), std::string::npos) << r.out;
    EXPECT_NE(tail.out.find("\"type\":\"diagnosis_ready\""), std::string::npos) << tail.out;
  }
}

TEST_F(Cli, DiagnoseJsonIsOneObjectThatSaysWhatWasNotMeasured) {
  auto r = warpforge("diagnose --json " WARPFORGE_SOURCE_DIR "/examples/transpose/problem.toml --run-root "
                     + (dir / "runs").string());
  simdjson::dom::parser parser;
  auto doc = parser.parse(r.out);
  ASSERT_FALSE(doc.error()) << "stdout is exactly one JSON object: " << r.out;
  EXPECT_EQ(std::string_view{doc["problem"].get_string().value()}, "transpose");
  EXPECT_EQ(doc["compile"].get_array().value().size(), 1u);
  auto sass = doc["sass"].get_array().value();
  ASSERT_EQ(sass.size(), 1u);
  const std::string_view sass_status = sass.at(0)["status"].get_string().value();
  EXPECT_TRUE(sass_status == "checked" || sass_status == "unavailable") << sass_status;
  if (r.exit_code == 5) {
    EXPECT_EQ(doc["gpus"].get_array().value().size(), 0u);
    EXPECT_FALSE(std::string_view{doc["no_gpu"].get_string().value()}.empty());
  } else {
    auto gpus = doc["gpus"].get_array().value();
    ASSERT_GE(gpus.size(), 1u);
    EXPECT_EQ(std::string_view{gpus.at(0)["outcome"].get_string().value()}, "passed") << r.out;
  }
}

TEST_F(Cli, DiagnoseRejectsAMissingOrMalformedSpecOrCandidateWithExitThree) {
  auto missing = warpforge("diagnose " + (dir / "missing.toml").string() + " --run-root " + (dir / "runs").string());
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_NE(missing.err.find((dir / "missing.toml").string() + ": cannot read"), std::string::npos) << missing.err;

  const auto broken = dir / "broken.toml";
  std::ofstream{broken} << "name = \"x\"\n[kernel]\nsource = 42\n";
  auto malformed = warpforge("diagnose " + broken.string() + " --run-root " + (dir / "runs").string());
  EXPECT_EQ(malformed.exit_code, 3) << malformed.err;
  EXPECT_NE(malformed.err.find(broken.string() + ":3:"), std::string::npos) << malformed.err;

  auto no_candidate = warpforge("diagnose " WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml --candidate "
                                + (dir / "nope.cu").string() + " --run-root " + (dir / "runs").string());
  EXPECT_EQ(no_candidate.exit_code, 3) << no_candidate.err;
  EXPECT_NE(no_candidate.err.find("--candidate " + (dir / "nope.cu").string() + ": no such file"), std::string::npos)
    << no_candidate.err;
  auto device = warpforge("bench " WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml --candidate /dev/zero "
                          "--run-root " + (dir / "runs").string());
  EXPECT_EQ(device.exit_code, 3) << device.err;
  EXPECT_NE(device.err.find("--candidate /dev/zero: a device, pipe or socket, not a kernel source"), std::string::npos)
    << device.err;
  EXPECT_FALSE(fs::exists(dir / "runs")) << "nothing recorded for bad input";
}

TEST_F(Cli, StatusOfAFolderThatIsNotARunDirectoryNamesWhatIsMissing) {
  auto r = warpforge("status " + dir.string());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("not a run directory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("warpforge.db"), std::string::npos) << r.err;
}

TEST_F(Cli, ResumeOfAFolderThatIsNotARunDirectoryExitsThree) {
  auto resume = warpforge("resume " + dir.string());
  EXPECT_EQ(resume.exit_code, 3);
  EXPECT_NE(resume.err.find("not a run directory"), std::string::npos) << resume.err;
}

TEST_F(Cli, ReportOfAFolderThatIsNotARunDirectoryExitsThree) {
  auto report = warpforge("report " + dir.string());
  EXPECT_EQ(report.exit_code, 3);
  EXPECT_NE(report.err.find("not a run directory"), std::string::npos) << report.err;
}

TEST_F(Cli, BadUsageExitsTwo) {
  EXPECT_EQ(warpforge("").exit_code, 0) << "bare warpforge prints the help (issue 28)";
  EXPECT_EQ(warpforge("frobnicate").exit_code, 2);
  EXPECT_EQ(warpforge("tail --from-seq").exit_code, 2) << "--from-seq needs its number";
  EXPECT_EQ(warpforge("--help").exit_code, 0);
}

TEST_F(Cli, DoctorReportsEverySectionAsJsonAndGatesOnGpuWhenAsked) {
  auto r = warpforge("doctor --json --run-root " + (dir / "not-yet").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  auto doc = parser.parse(r.out);
  ASSERT_FALSE(doc.error()) << r.out;
  const bool usable = doc["gpu_usable"].get_bool().value();
  // The runner answered (with GPUs or with the reason there are none).
  EXPECT_FALSE(doc["gpus"].is_null()) << r.out;
  std::string_view status = doc["gpus"]["status"].get_string().value();
  EXPECT_EQ(usable, status == "ok");
  if (!usable) {
    EXPECT_FALSE(doc["gpus"]["reason"].get_string().value().empty());
  }
  EXPECT_FALSE(doc["toolchain"]["nvrtc_version"].is_null());
  EXPECT_EQ(doc["llm_keys"].get_array().value().size(), 2u);
  EXPECT_TRUE(doc["run_root"]["writable"].get_bool().value());
  EXPECT_FALSE(doc["run_root"]["exists"].get_bool().value());

  auto gated = warpforge("doctor --require-gpu --run-root " + dir.string());
  EXPECT_EQ(gated.exit_code, usable ? 0 : 5);
  EXPECT_NE(gated.out.find(usable ? "Verdict: ready" : "Verdict: no usable GPU"), std::string::npos)
    << gated.out;
}

TEST_F(Cli, DoctorNeverPrintsAKeysValue) {
  const std::string secret = "sk-test-do-not-print-0123456789";
  ::setenv("ANTHROPIC_API_KEY", secret.c_str(), 1);
  auto r = warpforge("doctor --run-root " + dir.string());
  auto j = warpforge("doctor --json --run-root " + dir.string());
  ::unsetenv("ANTHROPIC_API_KEY");
  EXPECT_EQ(r.out.find(secret), std::string::npos);
  EXPECT_EQ(j.out.find(secret), std::string::npos);
  EXPECT_NE(r.out.find("ANTHROPIC_API_KEY"), std::string::npos);
}

} // namespace
