// Where a job with several configurations is profiled: the configuration with the most weighted
// data, not merely the most launched one.

#include "pipeline/job_setup.hpp"

#include <gtest/gtest.h>

namespace warpforge::pipeline {
namespace {

job_config config_of(std::string name, double weight, std::uint64_t buffer_bytes) {
  job_config at;
  at.config.name = std::move(name);
  at.config.weight = weight;
  config::resolved_buffer in;
  in.name = "in";
  in.bytes = buffer_bytes;
  at.defaults.args.push_back(in);
  return at;
}

TEST(HeaviestConfig, IsTheMostWeightedDataNotTheMostLaunches) {
  // 200 launches of 8 MB (1.6 GB in all) against 6 launches of 512 MB (3 GB in all).
  std::vector<job_config> configs{config_of("small", 200.0 / 206, 8'000'000),
                                  config_of("large", 6.0 / 206, 512'000'000)};
  EXPECT_EQ(heaviest_config(configs), 1u);
  configs[1].config.weight = 2.0 / 206; // 1 GB in all: the small launches now move more
  EXPECT_EQ(heaviest_config(configs), 0u);
}

TEST(HeaviestConfig, TheFirstOfEqualsAndASingleConfig) {
  EXPECT_EQ(heaviest_config({config_of("a", 0.5, 100), config_of("b", 0.5, 100)}), 0u);
  EXPECT_EQ(heaviest_config({config_of("only", 1.0, 100)}), 0u);
}

TEST(RunnerCannotCheck, AReferenceFromAnExpectedValuesFileNamesTheProblemAndOpenJobRefusesItWithTheSameText) {
  config::problem_spec problem;
  problem.reference.kind = config::reference_kind::file;
  const auto why = runner_cannot_check(problem, "specs/p.toml");
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "specs/p.toml: a reference from an expected-values file is not supported by the runner yet");
  const auto opened = open_job("p", "specs/p.toml", problem);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error(), *why);
}

TEST(RunnerCannotCheck, TheKernelsOwnOrAnotherKernelAsReferenceIsChecked) {
  config::problem_spec problem;
  problem.reference.kind = config::reference_kind::self;
  EXPECT_EQ(runner_cannot_check(problem, "p.toml"), std::nullopt);
  problem.reference.kind = config::reference_kind::kernel;
  EXPECT_EQ(runner_cannot_check(problem, "p.toml"), std::nullopt);
}

} // namespace
} // namespace warpforge::pipeline
