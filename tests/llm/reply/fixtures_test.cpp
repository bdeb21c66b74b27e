// The scripted replies of tests/llm/fixtures (see its README): the good ones parse against the
// real examples' contracts and their launches fit an H100, the bad ones are refused for the fault
// they were written to show, and every code is, byte for byte, a kernel file of the fixtures
// (so a kernel edited without `fixtures.py write` fails here).
#include "llm/reply/launch.hpp"
#include "llm/reply/parse.hpp"
#include "tests/llm/reply/reply_test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

namespace warpforge::llm {
namespace {

using testing::example_contract;
using testing::read_text;

const expression::integer_values transpose_dims{{"ROWS", 8192}, {"COLS", 8192}};
const expression::integer_values sgemm_dims{{"M", 2048}, {"N", 2048}, {"K", 2048}};

envelope parsed(const std::string& fixture, const kernel_contract& contract) {
  auto reply = parse_reply(read_text("tests/llm/fixtures/" + fixture), contract);
  EXPECT_TRUE(reply.has_value()) << fixture << ": "
                                 << (reply ? "" : reask_text(reply.error()));
  return reply ? *reply : envelope{};
}

std::vector<reply_problem> refused(const std::string& fixture, const kernel_contract& contract) {
  auto reply = parse_reply(read_text("tests/llm/fixtures/" + fixture), contract);
  EXPECT_FALSE(reply.has_value()) << fixture;
  return reply ? std::vector<reply_problem>{} : reply.error();
}

// Every .cu file of <example>/kernels, as text.
std::set<std::string> kernel_files(const std::string& example) {
  std::set<std::string> out;
  const auto folder = std::filesystem::path{WARPFORGE_SOURCE_DIR} / "tests/llm/fixtures" / example / "kernels";
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".cu")
      out.insert(read_text(std::filesystem::relative(entry.path(), WARPFORGE_SOURCE_DIR)));
  return out;
}

void expect_codes_are_kernel_files(const envelope& reply, const std::string& example) {
  const auto files = kernel_files(example);
  for (const auto& variant : reply.variants) {
    EXPECT_TRUE(files.contains(variant.code)) << variant.name;
    for (const auto& ablation : variant.ablations)
      EXPECT_TRUE(files.contains(ablation.code)) << variant.name << " without " << ablation.without;
  }
}

config::launch_geometry geometry_of(const proposed_variant& variant, const std::optional<variant_launch>& launch,
                                    const expression::integer_values& defines,
                                    const expression::integer_values& dims) {
  EXPECT_TRUE(launch.has_value()) << variant.name;
  expression::integer_values names = dims;
  names.insert(defines.begin(), defines.end());
  auto geometry = evaluate_launch(launch.value_or(variant_launch{}), names, {});
  EXPECT_TRUE(geometry.has_value()) << variant.name << ": " << (geometry ? "" : geometry.error());
  return geometry ? *geometry : config::launch_geometry{};
}

TEST(Fixtures, TheTransposeIterationParsesWithItsAblations) {
  const auto contract = example_contract("transpose", "transpose", 3);
  const auto reply = parsed("transpose/iter1.reply.txt", contract);
  ASSERT_EQ(reply.variants.size(), 3u);
  EXPECT_EQ(reply.variants[0].name, "tile32x8_pad");
  EXPECT_EQ(reply.variants[0].methods,
            (std::vector<std::string>{"memory.tiling_smem", "memory.bank_conflict"}));
  ASSERT_EQ(reply.variants[0].ablations.size(), 2u);
  EXPECT_EQ(reply.variants[0].ablations[0].without, "memory.bank_conflict");
  EXPECT_EQ(reply.variants[0].ablations[1].without, "memory.tiling_smem");
  const std::array<std::uint32_t, 3> rows{8, 16, 32};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& v = reply.variants[i];
    const auto geometry = geometry_of(v, v.launch, v.defines, transpose_dims);
    EXPECT_EQ(geometry.grid, (std::array<std::uint32_t, 3>{256, 256, 1})) << v.name;
    EXPECT_EQ(geometry.block, (std::array<std::uint32_t, 3>{32, rows[i], 1})) << v.name;
  }
  EXPECT_TRUE(launch_problems(reply, transpose_dims, {}).empty());
  expect_codes_are_kernel_files(reply, "transpose");
}

TEST(Fixtures, TheTransposeFixesReplaceTheBrokenVariantsByName) {
  const auto contract = example_contract("transpose", "transpose");
  const auto first = parsed("transpose/iter1.reply.txt", contract);
  const auto compile = parsed("transpose/fix_compile.reply.txt", contract);
  const auto wrong = parsed("transpose/fix_wrong.reply.txt", contract);
  ASSERT_EQ(first.variants.size(), 3u);
  ASSERT_EQ(compile.variants.size(), 1u);
  ASSERT_EQ(wrong.variants.size(), 1u);
  EXPECT_EQ(compile.variants[0].name, first.variants[1].name);
  EXPECT_NE(compile.variants[0].code, first.variants[1].code);
  EXPECT_EQ(wrong.variants[0].name, first.variants[2].name);
  EXPECT_NE(wrong.variants[0].code, first.variants[2].code);
  EXPECT_EQ(compile.variants[0].code, first.variants[0].code) << "the fix is the good kernel";
  expect_codes_are_kernel_files(compile, "transpose");
  expect_codes_are_kernel_files(wrong, "transpose");
}

TEST(Fixtures, TheSgemmIterationBringsItsOwnLaunchGeometry) {
  const auto contract = example_contract("sgemm", "sgemm", 4);
  const auto reply = parsed("sgemm/iter1.reply.txt", contract);
  ASSERT_EQ(reply.variants.size(), 4u);
  for (const auto& v : reply.variants) {
    const auto geometry = geometry_of(v, v.launch, v.defines, sgemm_dims);
    EXPECT_EQ(geometry.block, (std::array<std::uint32_t, 3>{256, 1, 1})) << v.name;
    EXPECT_EQ(geometry.grid[0], 2048 / v.defines.at("BN")) << v.name;
    EXPECT_EQ(geometry.grid[1], 2048 / v.defines.at("BM")) << v.name;
  }
  const auto& first = reply.variants[0];
  ASSERT_EQ(first.ablations.size(), 2u);
  EXPECT_EQ(first.ablations[0].defines, first.defines) << "inherited";
  const auto untiled = geometry_of(first, first.ablations[1].launch, first.ablations[1].defines, sgemm_dims);
  EXPECT_EQ(untiled.grid, (std::array<std::uint32_t, 3>{128, 128, 1})) << "one output per thread";
  EXPECT_EQ(untiled.block, (std::array<std::uint32_t, 3>{256, 1, 1}));
  EXPECT_TRUE(launch_problems(reply, sgemm_dims, {}).empty());
  expect_codes_are_kernel_files(reply, "sgemm");
}

TEST(Fixtures, TheSgemmFixesParse) {
  const auto contract = example_contract("sgemm", "sgemm");
  for (const std::string fix : {"sgemm/fix_compile.reply.txt", "sgemm/fix_wrong.reply.txt"}) {
    const auto reply = parsed(fix, contract);
    ASSERT_EQ(reply.variants.size(), 1u) << fix;
    EXPECT_TRUE(launch_problems(reply, sgemm_dims, {}).empty()) << fix;
    expect_codes_are_kernel_files(reply, "sgemm");
  }
}

TEST(Fixtures, TheElidedReplyIsRefusedAtItsPlaceholder) {
  const auto problems = refused("sgemm/elided.reply.txt", example_contract("sgemm", "sgemm"));
  ASSERT_EQ(problems.size(), 1u) << reask_text(problems);
  EXPECT_EQ(problems[0].fault, reply_fault::elided_code);
  EXPECT_EQ(problems[0].where.rfind("variants[0].code line ", 0), 0u) << problems[0].where;
  EXPECT_NE(problems[0].reason.find("rest of the kernel unchanged"), std::string::npos);
}

TEST(Fixtures, TheAlphaBetaReplyIsAChangedSignature) {
  const auto problems = refused("sgemm/changed_signature.reply.txt", example_contract("sgemm", "sgemm"));
  ASSERT_EQ(problems.size(), 1u) << reask_text(problems);
  EXPECT_EQ(problems[0].fault, reply_fault::changed_signature);
  EXPECT_NE(problems[0].reason.find("8 parameters, the problem passes 6"), std::string::npos)
    << problems[0].reason;
}

TEST(Fixtures, TheNonAsciiReplyNamesBothCharacters) {
  const auto problems = refused("sgemm/non_ascii.reply.txt", example_contract("sgemm", "sgemm"));
  ASSERT_EQ(problems.size(), 2u) << reask_text(problems);
  EXPECT_EQ(problems[0].fault, reply_fault::non_ascii);
  EXPECT_NE(problems[0].reason.find("U+2019"), std::string::npos) << problems[0].reason;
  EXPECT_NE(problems[1].reason.find("U+00D7"), std::string::npos) << problems[1].reason;
  EXPECT_EQ(problems[0].where.substr(0, problems[0].where.find(" column")),
            problems[1].where.substr(0, problems[1].where.find(" column")))
    << "both on the accumulator's line";
}

} // namespace
} // namespace warpforge::llm
