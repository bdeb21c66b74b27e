// Secrets (issue 22, items 8 and 10), through the real `warpforge` binary:
//   - no child warpforge starts sees a key variable: not the configured `[llm] api_key_env`
//     (whatever its name), not MY_LLM_KEY or OPENROUTER_KEY (audit: they reached the runner and
//     the deploy's bench script). The stand-in runner and the deploy's build, verify and time
//     commands write `env` to files; none holds a key, every one holds an ordinary variable.
//   - an http:// base_url to a host other than this one, with a key configured, is refused at the
//     spec, with its place, before anything starts. The host is `llm.invalid` (RFC 2606: never
//     resolves), and the refusal comes before any connection, so the test cannot reach a network.

#include "tests/apps/cli/deploy_fixture.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using warpforge::testing::deploy_fixture;

// The key variables of the audit, and the configured one with a name no rule could guess.
const std::vector<std::string> key_variables = {
  "MY_LLM_KEY=sk-audit-my-llm-secret", "OPENROUTER_KEY=sk-audit-openrouter-secret",
  "WF_AUDIT_CREDENTIAL=sk-audit-configured-secret"};
constexpr std::string_view ordinary_variable = "WF_AUDIT_PLAIN=visible-to-children";

class Secrets : public deploy_fixture {
protected:
  fs::path env_dir;

  void SetUp() override {
    deploy_fixture::SetUp();
    env_dir = dir / "child-env";
    fs::create_directories(env_dir);
    // The stand-in runner, started through a script that first writes what it was given.
    write(dir / "runner.sh", "#!/bin/sh\nenv > \"" + (env_dir / "runner-").string() + "$$.txt\"\nexec " +
                               WARPFORGE_FAKE_RUNNER_PATH + " \"$@\"\n");
    ::chmod((dir / "runner.sh").c_str(), 0755);
    // The deploy's build, verify and time commands do the same before their work.
    for (const char* script : {"build.sh", "check.sh", "bench.sh"})
      write(project / script, "env > \"" + (env_dir / script).string() + "-$$.txt\"\n" + read(project / script));
  }

  // The campaign of the deploy fixture, finished then deployed ([deploy] at_end), with an [llm]
  // table naming the configured key variable (the tuner proposes: no model is asked).
  fs::path write_campaign_with_llm_table() {
    const auto file = dir / "campaign.toml";
    std::ofstream{file} << "name = \"secrets\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                        << "[[jobs]]\nproblem = \"" << (dir / "problem.toml").string() << "\"\n"
                        << "[budget]\niterations = 2\nbranches = 3\npatience = 10\n"
                        << "[proposer]\nkind = \"tune\"\nstrategy = \"exhaustive\"\n"
                        << "[llm]\nprovider = \"openai\"\nmodel = \"m\"\napi_key_env = \"WF_AUDIT_CREDENTIAL\"\n"
                        << "base_url = \"http://127.0.0.1:9/v1\"\n"
                        << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n"
                        << "[deploy]\nat_end = true\n";
    return file;
  }

  // `warpforge run <campaign>` with the key variables set, to its end (at most 180 s).
  int run_with_keys(const fs::path& campaign, const std::string& runner) {
    std::vector<std::string> env = {"WARPFORGE_RUNNER=" + runner, "WARPFORGE_FAKE_RUNNER_MODE=campaign",
                                    "WARPFORGE_LOCK_DIR=" + (dir / "locks").string(), std::string{ordinary_variable}};
    env.insert(env.end(), key_variables.begin(), key_variables.end());
    const pid_t pid = spawn(WARPFORGE_BIN, {"run", campaign.string(), "--quiet"}, env, "out.txt", "err.txt");
    return wait_exit_within(pid, std::chrono::seconds{180}).value_or(-1);
  }
};

TEST_F(Secrets, NoChildSeesAKeyVariableWhateverItsName) {
  const int code = run_with_keys(write_campaign_with_llm_table(), (dir / "runner.sh").string());
  ASSERT_EQ(code, 0) << text_of("err.txt");
  std::vector<std::string> seen;
  for (const auto& entry : fs::directory_iterator{env_dir})
    seen.push_back(entry.path().filename().string());
  auto started = [&](std::string_view prefix) {
    return std::count_if(seen.begin(), seen.end(), [&](const std::string& name) { return name.starts_with(prefix); });
  };
  ASSERT_GE(started("runner-"), 1) << "the stand-in runner never started through the script";
  ASSERT_GE(started("build.sh"), 1) << "the deploy never built: " << text_of("out.txt") << text_of("err.txt");
  ASSERT_GE(started("bench.sh"), 1) << "the deploy never timed the program: " << text_of("out.txt");
  for (const auto& name : seen) {
    const auto env = read(env_dir / name);
    EXPECT_NE(env.find(ordinary_variable), std::string::npos) << name << " (the control): " << env;
    for (const auto& key : key_variables) {
      const auto variable = key.substr(0, key.find('='));
      EXPECT_EQ(env.find(variable + "="), std::string::npos) << name << " got " << variable;
    }
    EXPECT_EQ(env.find("sk-audit-"), std::string::npos) << name << ": " << env;
  }
}

TEST_F(Secrets, PlainHttpToAnotherHostWithAKeyIsRefusedAtTheSpecBeforeAnythingStarts) {
  const auto file = dir / "remote.toml";
  std::ofstream{file} << "name = \"remote-llm\"\nrun_root = \"" << (dir / "runs").string() << "\"\n"
                      << "[[jobs]]\nproblem = \"" << (dir / "problem.toml").string() << "\"\n"
                      << "[budget]\niterations = 1\nbranches = 2\n"
                      << "[proposer]\nkind = \"llm\"\n"
                      << "[llm]\nprovider = \"openai\"\nmodel = \"m\"\napi_key_env = \"WF_AUDIT_CREDENTIAL\"\n"
                      << "base_url = \"http://llm.invalid:8000/v1\"\n"
                      << "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
  // No runner either: nothing may start, so none is needed.
  const int code = run_with_keys(file, "/nonexistent/runner");
  EXPECT_EQ(code, 3) << "bad_input: " << text_of("err.txt");
  const auto err = text_of("err.txt");
  EXPECT_TRUE(std::regex_search(err, std::regex{"remote\\.toml:14:[0-9]+.*llm\\.base_url"})) << err;
  EXPECT_NE(err.find("llm.invalid"), std::string::npos) << err;
  EXPECT_NE(err.find("WF_AUDIT_CREDENTIAL"), std::string::npos) << "names the key's variable: " << err;
  EXPECT_EQ(err.find("sk-audit-"), std::string::npos) << "never the key itself: " << err;
  EXPECT_TRUE(run_dir().empty()) << "nothing was started, no run directory: " << run_dir();
}

} // namespace
