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

} // namespace
} // namespace warpforge::pipeline
