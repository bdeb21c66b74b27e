// Every spec under examples/ loads cleanly: problem specs are the files named problem.toml,
// every other .toml is a campaign (a <name>.configs.toml is read through the problem naming it).

#include "config/campaign_spec.hpp"
#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"

#include "fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

namespace warpforge::config {
namespace {

std::vector<std::filesystem::path> example_specs() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator{testing::example("")})
    // A configs file (only [[configs]] tables) is read through the problem naming it in configs_file.
    if (entry.is_regular_file() && entry.path().extension() == ".toml" &&
        !entry.path().filename().string().ends_with(".configs.toml"))
      out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Examples, EveryExampleSpecLoadsCleanly) {
  const auto specs = example_specs();
  EXPECT_GE(specs.size(), 4u);
  for (const auto& path : specs) {
    SCOPED_TRACE(path.string());
    if (path.filename() == "problem.toml") {
      auto spec = load_problem(path);
      ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
      EXPECT_TRUE(resolve_problem(*spec, default_point(*spec)).has_value());
    } else {
      auto spec = load_campaign(path);
      ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
    }
  }
}

TEST(Examples, EveryTunablePointOfTheExamplesThatSatisfiesTheConstraintsResolves) {
  for (const auto& path : example_specs()) {
    if (path.filename() != "problem.toml")
      continue;
    SCOPED_TRACE(path.string());
    auto spec = load_problem(path);
    ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
    // Walk the full cartesian product (the examples are small).
    std::vector<std::size_t> index(spec->tunables.size(), 0);
    std::size_t visited = 0;
    for (;;) {
      tunable_point point;
      for (std::size_t t = 0; t < index.size(); ++t)
        point[spec->tunables[t].name] = spec->tunables[t].values[index[t]];
      if (satisfies_constraints(*spec, point)) {
        auto r = resolve_problem(*spec, point);
        EXPECT_TRUE(r.has_value()) << (r ? "" : to_string(r.error()));
        ++visited;
      }
      std::size_t t = 0;
      while (t < index.size() && ++index[t] == spec->tunables[t].values.size())
        index[t++] = 0;
      if (t == index.size())
        break;
    }
    EXPECT_GT(visited, 0u);
  }
}

TEST(Examples, QuickstartRunsTheThreeProblemsWithTheTuner) {
  auto campaign = load_campaign(testing::example("quickstart.toml"));
  ASSERT_TRUE(campaign.has_value()) << to_string(campaign.error());
  ASSERT_EQ(campaign->jobs.size(), 3u);
  EXPECT_EQ(campaign->jobs[0].name, "vector_add");
  EXPECT_EQ(campaign->jobs[1].name, "transpose");
  EXPECT_EQ(campaign->jobs[2].name, "row_reduction");
  EXPECT_EQ(campaign->budget.branches, 4u);
  EXPECT_EQ(campaign->proposer.kind, proposer_kind::tune);
}

TEST(Examples, TunablesNameTheirOptimisationMethods) {
  auto transpose = load_problem(testing::example("transpose/problem.toml"));
  ASSERT_TRUE(transpose.has_value()) << to_string(transpose.error());
  EXPECT_EQ(transpose->find_tunable("USE_SMEM_TILE")->method, "tiling_smem");
  EXPECT_EQ(transpose->find_tunable("PAD")->method, "bank_conflict");
  EXPECT_EQ(transpose->reference.kind, reference_kind::kernel);
  auto reduction = load_problem(testing::example("row_reduction/problem.toml"));
  ASSERT_TRUE(reduction.has_value()) << to_string(reduction.error());
  EXPECT_EQ(reduction->find_tunable("WARP_SHUFFLE")->method, "warp_shuffle");
  EXPECT_EQ(reduction->reference.kind, reference_kind::kernel);
}

} // namespace
} // namespace warpforge::config
