#include "llm/reply/launch.hpp"

#include <gtest/gtest.h>

#include <string>

namespace warpforge::llm {
namespace {

const expression::integer_values sgemm_names{{"M", 2048}, {"N", 2048}, {"K", 2048}, {"BM", 128},
                                             {"BN", 128},  {"TM", 8},    {"TN", 8}};

std::string failure(const variant_launch& launch, const expression::integer_values& names = sgemm_names,
                    const device_limits& limits = {}) {
  auto geometry = evaluate_launch(launch, names, limits);
  EXPECT_FALSE(geometry.has_value());
  return geometry ? std::string{} : geometry.error();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(EvaluateLaunch, ARegisterTiledLaunchEvaluatesOverDimsAndDefines) {
  const variant_launch launch{{"ceil_div(N, BN)", "ceil_div(M, BM)"}, {"(BM / TM) * (BN / TN)"}, "2 * 4096"};
  auto geometry = evaluate_launch(launch, sgemm_names, {});
  ASSERT_TRUE(geometry) << geometry.error();
  EXPECT_EQ(geometry->grid, (std::array<std::uint32_t, 3>{16, 16, 1}));
  EXPECT_EQ(geometry->block, (std::array<std::uint32_t, 3>{256, 1, 1})) << "missing y and z are 1";
  EXPECT_EQ(geometry->dynamic_smem_bytes, 8192u);
}

TEST(EvaluateLaunch, ValuesBelowOneAreRefusedWithTheirExpression) {
  const auto error = failure({{"N - 2048"}, {"32"}, "0"});
  EXPECT_TRUE(contains(error, "launch.grid[0] \"N - 2048\" is 0, outside [1, 2147483647]")) << error;
  EXPECT_TRUE(contains(failure({{"1"}, {"1"}, "-4"}), "launch.shared_bytes \"-4\" is -4"));
}

TEST(EvaluateLaunch, ValuesOverTheDeviceLimitsAreRefused) {
  EXPECT_TRUE(contains(failure({{"1", "70000"}, {"32"}, "0"}), "launch.grid[1] \"70000\" is 70000, outside [1, 65535]"));
  EXPECT_TRUE(contains(failure({{"1"}, {"2048"}, "0"}), "launch.block[0] \"2048\" is 2048"));
  EXPECT_TRUE(contains(failure({{"1"}, {"1", "1", "65"}, "0"}), "launch.block[2]"));
  EXPECT_TRUE(contains(failure({{"1"}, {"32"}, "232449"}), "outside [0, 232448] bytes"));
  device_limits small;
  small.max_shared_per_block = 49152;
  EXPECT_TRUE(contains(failure({{"1"}, {"32"}, "BM * 512"}, sgemm_names, small), "65536, outside [0, 49152]"));
}

TEST(EvaluateLaunch, TooManyThreadsPerBlockAreRefused) {
  const auto error = failure({{"1"}, {"32", "64"}, "0"});
  EXPECT_TRUE(contains(error, "32 x 64 x 1 = 2048 threads, above the device's 1024 per block")) << error;
}

TEST(EvaluateLaunch, AnUnknownNameListsTheNamesThereAre) {
  const auto error = failure({{"ceil_div(N, TILE)"}, {"32"}, "0"});
  EXPECT_TRUE(contains(error, "launch.grid[0] \"ceil_div(N, TILE)\"")) << error;
  EXPECT_TRUE(contains(error, "TILE")) << error;
  EXPECT_TRUE(contains(error, "BM, BN, K, M, N, TM, TN")) << error;
}

TEST(EvaluateLaunch, SyntaxErrorsAndMissingAxesAreRefused) {
  EXPECT_TRUE(contains(failure({{"ceil_div(N"}, {"32"}, "0"}), "(column"));
  EXPECT_TRUE(contains(failure({{}, {"32"}, "0"}), "launch.grid has 0 entries"));
  EXPECT_TRUE(contains(failure({{"1"}, {"1", "1", "1", "1"}, "0"}), "launch.block has 4 entries"));
  EXPECT_TRUE(contains(failure({{"N / (BM - 128)"}, {"32"}, "0"}), "by zero"));
}

TEST(EvaluateLaunch, EveryFailureIsReportedTogether) {
  const auto error = failure({{"0"}, {"0"}, "-1"});
  EXPECT_TRUE(contains(error, "launch.grid[0]")) << error;
  EXPECT_TRUE(contains(error, "launch.block[0]")) << error;
  EXPECT_TRUE(contains(error, "launch.shared_bytes")) << error;
}

TEST(LaunchProblems, NameTheVariantAndADefineShadowingADim) {
  envelope reply;
  proposed_variant fits{"fits", "m", {}, "", {{"BM", 64}}, variant_launch{{"ceil_div(M, BM)"}, {"BM"}, "0"}, {}};
  proposed_variant too_big = fits;
  too_big.name = "too_big";
  too_big.defines = {{"BM", 4096}};
  proposed_variant shadow = fits;
  shadow.defines = {{"BM", 64}, {"M", 1}};
  fits.ablations.push_back({"memory.tiling_smem", "", {{"BM", 2048}}, fits.launch});
  reply.variants = {fits, too_big, shadow};
  const auto problems = launch_problems(reply, {{"M", 2048}}, {});
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].where, "variants[0].ablations[0].launch");
  EXPECT_EQ(problems[0].fault, reply_fault::bad_launch);
  EXPECT_EQ(problems[1].where, "variants[1].launch");
  EXPECT_TRUE(contains(problems[1].reason, "\"BM\" is 4096")) << problems[1].reason;
  EXPECT_EQ(problems[2].fault, reply_fault::bad_define);
  EXPECT_EQ(problems[2].where, "variants[2].defines.M");
}

} // namespace
} // namespace warpforge::llm
