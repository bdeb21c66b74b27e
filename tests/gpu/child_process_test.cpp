// Children of warpforge (runners, ncu, user programs) never inherit a secret: a real child
// (/usr/bin/env) prints what it was given.

#include "gpu/runner/child_process.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace warpforge::gpu {
namespace {

TEST(ChildProcess, SecretsAreNotPassedOnAndEverythingElseIs) {
  ::setenv("ANTHROPIC_API_KEY", "sk-ant-secret", 1);
  ::setenv("OPENAI_API_KEY", "sk-secret", 1);
  ::setenv("HF_TOKEN", "hf-secret", 1);
  ::setenv("WARPFORGE_TEST_PLAIN", "kept", 1);
  const auto out = std::filesystem::temp_directory_path() / ("wf-env-" + std::to_string(::getpid()) + ".txt");
  std::filesystem::remove(out);
  spawn_options options;
  options.executable = "/usr/bin/env";
  options.environment = {{"CUDA_VISIBLE_DEVICES", "0"}};
  options.output_file = out;
  auto child = child_process::spawn(options);
  ASSERT_TRUE(child) << child.error().detail;
  auto ended = child->wait_for_exit(std::chrono::seconds{10});
  ASSERT_TRUE(ended);
  std::stringstream text;
  text << std::ifstream{out}.rdbuf();
  std::filesystem::remove(out);
  EXPECT_EQ(text.str().find("secret"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("WARPFORGE_TEST_PLAIN=kept"), std::string::npos);
  EXPECT_NE(text.str().find("CUDA_VISIBLE_DEVICES=0"), std::string::npos);
  ::unsetenv("ANTHROPIC_API_KEY");
  ::unsetenv("OPENAI_API_KEY");
  ::unsetenv("HF_TOKEN");
}

TEST(ChildProcess, SecretsAreKnownByTheirNames) {
  EXPECT_TRUE(is_secret_variable("ANTHROPIC_API_KEY"));
  EXPECT_TRUE(is_secret_variable("GITHUB_TOKEN"));
  EXPECT_TRUE(is_secret_variable("DB_PASSWORD"));
  EXPECT_FALSE(is_secret_variable("PATH"));
  EXPECT_FALSE(is_secret_variable("CUDA_VISIBLE_DEVICES"));
  EXPECT_FALSE(is_secret_variable("TOKEN_BUCKET_SIZE"));
  // Names the audit saw passed on (issue 22): any *_KEY, in any case, and the providers' own.
  EXPECT_TRUE(is_secret_variable("MY_LLM_KEY"));
  EXPECT_TRUE(is_secret_variable("OPENROUTER_KEY"));
  EXPECT_TRUE(is_secret_variable("openrouter_key"));
  EXPECT_TRUE(is_secret_variable("OPENAI_APIKEY_2"));
  EXPECT_TRUE(is_secret_variable("AWS_SECRET"));
  for (auto known : known_secret_variables)
    EXPECT_TRUE(is_secret_variable(known)) << known;
  EXPECT_FALSE(is_secret_variable("KEYBOARD"));
  EXPECT_FALSE(is_secret_variable("HOME"));
}

TEST(ChildEnvironment, LeavesOutSecretsAndWithheldNamesAndSetsOverrides) {
  const char* parent[] = {"PATH=/usr/bin", "MY_LLM_KEY=k1", "OPENROUTER_KEY=k2", "WF_UNIT_CREDENTIAL=k3",
                          "CUDA_VISIBLE_DEVICES=3", "LANG=C", nullptr};
  const auto before = child_environment({{"CUDA_VISIBLE_DEVICES", "0"}}, parent);
  EXPECT_EQ(before, (std::vector<std::string>{"PATH=/usr/bin", "WF_UNIT_CREDENTIAL=k3", "LANG=C",
                                              "CUDA_VISIBLE_DEVICES=0"}));
  // The configured api_key_env, whatever its name looks like, from now on.
  withhold_from_children("WF_UNIT_CREDENTIAL");
  EXPECT_TRUE(is_withheld_from_children("WF_UNIT_CREDENTIAL"));
  EXPECT_FALSE(is_withheld_from_children("LANG"));
  const auto after = child_environment({}, parent);
  EXPECT_EQ(after, (std::vector<std::string>{"PATH=/usr/bin", "CUDA_VISIBLE_DEVICES=3", "LANG=C"}));
}

} // namespace
} // namespace warpforge::gpu
