#include "config/resolved_problem.hpp"

#include "fixture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace warpforge::config {
namespace {

using testing::example;
using testing::fixture;

problem_spec load(const std::filesystem::path& path) {
  auto spec = load_problem(path);
  EXPECT_TRUE(spec.has_value()) << to_string(spec.error());
  return spec ? *spec : problem_spec{};
}

const resolved_buffer& buffer(const resolved_problem& r, std::size_t i) {
  return std::get<resolved_buffer>(r.args.at(i));
}
const resolved_scalar& scalar(const resolved_problem& r, std::size_t i) {
  return std::get<resolved_scalar>(r.args.at(i));
}

TEST(ProblemResolve, VectorAddAtItsDefaultPointGivesExactGeometryAndBytes) {
  const auto spec = load(example("vector_add/problem.toml"));
  const auto point = default_point(spec);
  EXPECT_EQ(point, (tunable_point{{"BLOCK", 256}}));
  auto r = resolve_problem(spec, point);
  ASSERT_TRUE(r.has_value()) << to_string(r.error());
  EXPECT_EQ(r->launch.grid, (std::array<std::uint32_t, 3>{65536, 1, 1})); // 16 Mi / 256
  EXPECT_EQ(r->launch.block, (std::array<std::uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(r->launch.dynamic_smem_bytes, 0u);
  ASSERT_EQ(r->args.size(), 4u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(buffer(*r, i).count, 16777216u);
    EXPECT_EQ(buffer(*r, i).bytes, 67108864u); // 64 MiB of f32
  }
  EXPECT_EQ(buffer(*r, 0).role, arg_role::input);
  EXPECT_EQ(buffer(*r, 2).role, arg_role::output);
  EXPECT_EQ(buffer(*r, 0).init.kind, init_kind::uniform);
  EXPECT_EQ(scalar(*r, 3).name, "n");
  EXPECT_EQ(scalar(*r, 3).value, (std::variant<std::int64_t, double>{std::int64_t{16777216}}));
  EXPECT_EQ(r->defines, std::vector<std::string>{"-DBLOCK=256"});
  EXPECT_EQ(r->output_bytes, 67108864u);
  EXPECT_EQ(r->variables.at("N"), 16777216);
  EXPECT_FALSE(r->reference_launch.has_value()); // reference kind self
}

TEST(ProblemResolve, OtherPointsChangeTheGridAndDefines) {
  const auto spec = load(example("vector_add/problem.toml"));
  auto r = resolve_problem(spec, {{"BLOCK", 1024}});
  ASSERT_TRUE(r.has_value()) << to_string(r.error());
  EXPECT_EQ(r->launch.grid[0], 16384u);
  EXPECT_EQ(r->launch.block[0], 1024u);
  EXPECT_EQ(r->defines, std::vector<std::string>{"-DBLOCK=1024"});
}

TEST(ProblemResolve, TransposeResolvesTwoDimensionalGeometryAndItsReferenceLaunch) {
  const auto spec = load(example("transpose/problem.toml"));
  auto point = default_point(spec);
  EXPECT_EQ(point, (tunable_point{{"BLOCK_ROWS", 8}, {"PAD", 0}, {"TILE", 32}, {"USE_SMEM_TILE", 0}}));
  point["USE_SMEM_TILE"] = 1;
  point["PAD"] = 1;
  auto r = resolve_problem(spec, point);
  ASSERT_TRUE(r.has_value()) << to_string(r.error());
  EXPECT_EQ(r->launch.grid, (std::array<std::uint32_t, 3>{256, 256, 1}));
  EXPECT_EQ(r->launch.block, (std::array<std::uint32_t, 3>{32, 8, 1}));
  EXPECT_EQ(buffer(*r, 0).bytes, 8192u * 8192u * 4u);
  EXPECT_EQ(r->defines, (std::vector<std::string>{"-DUSE_SMEM_TILE=1", "-DTILE=32",
                                                  "-DBLOCK_ROWS=8", "-DPAD=1"}));
  ASSERT_TRUE(r->reference_launch.has_value());
  EXPECT_EQ(r->reference_launch->grid, (std::array<std::uint32_t, 3>{512, 512, 1}));
  EXPECT_EQ(r->reference_launch->block, (std::array<std::uint32_t, 3>{16, 16, 1}));
  EXPECT_EQ(tolerance_for(spec.reference, dtype::f32), (tolerance{0.0, 0.0}));
}

TEST(ProblemResolve, ConstraintsAreCheckedAtEachPoint) {
  const auto spec = load(example("transpose/problem.toml"));
  auto point = default_point(spec);
  EXPECT_TRUE(satisfies_constraints(spec, point));
  point["PAD"] = 1; // padding without the shared tile is excluded
  EXPECT_FALSE(satisfies_constraints(spec, point));
  EXPECT_EQ(check_constraints(spec, point).value(), false);
  auto r = resolve_problem(spec, point);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().key, "constraints[2]");
  EXPECT_NE(r.error().message.find("PAD=1"), std::string::npos) << r.error().message;
  point["PAD"] = 0;
  point["TILE"] = 16;
  point["BLOCK_ROWS"] = 32;
  EXPECT_FALSE(satisfies_constraints(spec, point)); // BLOCK_ROWS <= TILE
}

TEST(ProblemResolve, PointsMustBeOfTheSpec) {
  const auto spec = load(example("vector_add/problem.toml"));
  auto missing = resolve_problem(spec, {});
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().key, "tunables[0]");
  EXPECT_NE(missing.error().message.find("no value for tunable 'BLOCK'"), std::string::npos);

  auto unlisted = resolve_problem(spec, {{"BLOCK", 300}});
  ASSERT_FALSE(unlisted.has_value());
  EXPECT_NE(unlisted.error().message.find("300 is not one of the values"), std::string::npos);

  auto extra = resolve_problem(spec, {{"BLOCK", 256}, {"UNROLL", 2}});
  ASSERT_FALSE(extra.has_value());
  EXPECT_NE(extra.error().message.find("'UNROLL'"), std::string::npos);
  EXPECT_FALSE(check_constraints(spec, {}).has_value());
  EXPECT_FALSE(satisfies_constraints(spec, {}));
}

TEST(ProblemResolve, DivisionByZeroAtANonDefaultPointIsAnErrorNotACrash) {
  const std::string text = R"(name = "p"
[kernel]
source = "kernel.cu"
entry = "scale"
[[tunables]]
name = "BLOCK"
values = [256, 512]
[[args]]
name = "y"
dtype = "f32"
count = "4096 / (512 - BLOCK) * 256"
role = "output"
[launch]
grid = [1]
block = ["BLOCK"]
)";
  auto spec = parse_problem(text, fixture("inline.toml"));
  ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
  auto ok = resolve_problem(*spec, {{"BLOCK", 256}});
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(std::get<resolved_buffer>(ok->args[0]).count, 4096u);
  auto r = resolve_problem(*spec, {{"BLOCK", 512}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().key, "args[0].count");
  EXPECT_EQ(r.error().line, 11u);
  EXPECT_EQ(r.error().column, 15u); // the '/' inside count = "4096 / ..."
  EXPECT_NE(r.error().message.find("BLOCK=512"), std::string::npos) << r.error().message;
}

TEST(ProblemResolve, ScalarsKeepFloatsAndConvertIntegerExpressionsForFloatDtypes) {
  const std::string text = R"(name = "p"
[kernel]
source = "kernel.cu"
entry = "scale"
[dims]
N = 10
[[args]]
name = "y"
dtype = "f16"
count = "N"
role = "output"
[[args]]
name = "alpha"
dtype = "f64"
value = 0.25
[[args]]
name = "beta"
dtype = "f32"
value = "N * 2"
[launch]
grid = [1]
block = [32]
dynamic_smem = "N * 128"
)";
  auto spec = parse_problem(text, fixture("inline.toml"));
  ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
  auto r = resolve_problem(*spec, default_point(*spec));
  ASSERT_TRUE(r.has_value()) << to_string(r.error());
  EXPECT_EQ(buffer(*r, 0).bytes, 20u); // 10 x f16
  EXPECT_EQ(std::get<double>(scalar(*r, 1).value), 0.25);
  EXPECT_EQ(std::get<double>(scalar(*r, 2).value), 20.0);
  EXPECT_EQ(r->launch.dynamic_smem_bytes, 1280u);
  EXPECT_TRUE(r->defines.empty());
}

} // namespace
} // namespace warpforge::config
