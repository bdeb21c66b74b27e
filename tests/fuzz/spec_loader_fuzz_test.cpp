// Fuzzing the spec loader: problem and campaign TOML, mutated from the examples, must be accepted
// or refused with placed errors, never crash, throw or hang (issue 22).
#include "config/campaign_spec.hpp"
#include "config/problem_spec.hpp"
#include "tests/fuzz/mutator.hpp"

namespace warpforge::testing {
namespace {

const std::filesystem::path examples{WARPFORGE_SOURCE_DIR "/examples"};

std::vector<std::string> seeds_named(const std::vector<std::string>& files) {
  std::vector<std::string> seeds;
  for (const auto& file : files)
    seeds.push_back(read_text(examples / file));
  return seeds;
}

TEST(SpecLoaderFuzz, MutatedProblemSpecsAreAcceptedOrRefusedWithPlacedErrors) {
  fuzz_campaign campaign{"problem_spec",
                         seeds_named({"transpose/problem.toml", "sgemm/problem.toml", "softmax/problem.toml",
                                      "row_reduction/problem.toml", "vector_add/problem.toml",
                                      "deploy/problem.toml"}),
                         20'000};
  campaign.run([](std::string_view text) {
    // The example's folder, so the kernel and reference files it names resolve as they would.
    const auto parsed = config::parse_problem(text, examples / "transpose" / "problem.toml");
    if (!parsed) {
      EXPECT_FALSE(parsed.error().empty()) << "a refusal names at least one problem";
    }
  });
}

TEST(SpecLoaderFuzz, MutatedCampaignSpecsAreAcceptedOrRefusedWithPlacedErrors) {
  fuzz_campaign campaign{"campaign_spec",
                         seeds_named({"quickstart.toml", "sweep.toml", "calibrate.toml", "llm/campaign.toml",
                                      "deploy/campaign.toml"}),
                         10'000};
  campaign.run([](std::string_view text) {
    const auto parsed = config::parse_campaign(text, examples / "quickstart.toml");
    if (!parsed) {
      EXPECT_FALSE(parsed.error().empty()) << "a refusal names at least one problem";
    }
  });
}

} // namespace
} // namespace warpforge::testing
