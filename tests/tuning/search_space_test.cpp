#include "tuning/search_space.hpp"

#include "tuning/point_text.hpp"
#include "tuning/tuning_error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace warpforge::tuning {
namespace {

using config::tunable_point;

config::problem_spec load_example(const std::string& name) {
  auto spec = config::load_problem(std::string(WARPFORGE_SOURCE_DIR) + "/examples/" + name +
                                   "/problem.toml");
  if (!spec)
    throw std::runtime_error(toml_reader::to_string(spec.error()));
  return *spec;
}

search_space transpose_space() {
  auto space = search_space::from_problem(load_example("transpose"));
  if (!space)
    throw std::runtime_error(to_string(space.error()));
  return *space;
}

tunable_point transpose_point(std::int64_t smem, std::int64_t tile, std::int64_t rows,
                              std::int64_t pad) {
  return {{"USE_SMEM_TILE", smem}, {"TILE", tile}, {"BLOCK_ROWS", rows}, {"PAD", pad}};
}

config::tunable_spec tunable(std::string name, std::vector<std::int64_t> values,
                             std::int64_t default_value, std::optional<std::string> method = {}) {
  config::tunable_spec t;
  t.name = std::move(name);
  t.values = std::move(values);
  t.default_value = default_value;
  t.method = std::move(method);
  return t;
}

TEST(SearchSpace, TransposeHasFifteenValidPointsOfTwentyFour) {
  const auto space = transpose_space();
  EXPECT_EQ(space.size(), 24u);
  const auto valid = space.valid_points();
  EXPECT_EQ(valid.size(), 15u);
  // Counted by hand: (TILE, BLOCK_ROWS) in {16x8, 16x16, 32x8, 32x16, 32x32}, times
  // (USE_SMEM_TILE, PAD) in {(0,0), (1,0), (1,1)}.
  const auto spec = load_example("transpose");
  for (const auto& p : valid)
    EXPECT_TRUE(config::satisfies_constraints(spec, p)) << canonical_text(p);
  EXPECT_EQ(valid.front(), transpose_point(0, 16, 8, 0)) << "ordinal order: spec order, nested";
  EXPECT_EQ(valid.back(), transpose_point(1, 32, 32, 1));
}

TEST(SearchSpace, ConstraintViolationsAreNamedAsSuch) {
  const auto space = transpose_space();
  EXPECT_EQ(space.validity(transpose_point(0, 32, 8, 1)), point_validity::violates_constraint)
      << "padding needs the shared tile";
  EXPECT_EQ(space.validity(transpose_point(1, 16, 32, 0)), point_validity::violates_constraint)
      << "BLOCK_ROWS <= TILE";
  EXPECT_EQ(space.validity(transpose_point(1, 24, 8, 0)), point_validity::not_in_space);
  EXPECT_EQ(space.validity(tunable_point{{"TILE", 32}}), point_validity::not_in_space);
  EXPECT_EQ(space.validity(transpose_point(1, 32, 8, 1)), point_validity::valid);
}

TEST(SearchSpace, APointThatBreaksTheLaunchLimitsIsUnresolvable) {
  // No constraint guards BLOCK, but a 2048-thread block cannot launch.
  const std::string text = R"toml(name = "wide"
[kernel]
source = "kernel.cu"
entry = "vector_add"
[dims]
N = 4096
[[tunables]]
name = "BLOCK"
values = [512, 1024, 2048]
default = 512
[[args]]
name = "c"
dtype = "f32"
count = "N"
role = "output"
[launch]
grid = ["ceil_div(N, BLOCK)"]
block = ["BLOCK"]
)toml";
  auto spec = config::parse_problem(
      text, std::string(WARPFORGE_SOURCE_DIR) + "/examples/vector_add/wide.toml");
  ASSERT_TRUE(spec) << toml_reader::to_string(spec.error());
  auto space = search_space::from_problem(*spec);
  ASSERT_TRUE(space);
  EXPECT_EQ(space->validity(tunable_point{{"BLOCK", 2048}}), point_validity::unresolvable);
  EXPECT_EQ(space->valid_points().size(), 2u);
}

TEST(SearchSpace, OrdinalsAndPointsRoundTrip) {
  const auto space = transpose_space();
  for (std::uint64_t i = 0; i < space.size(); ++i)
    EXPECT_EQ(space.ordinal_of(space.point_at(i)), i);
  EXPECT_THROW(space.point_at(space.size()), std::out_of_range);
  EXPECT_EQ(space.default_point(), transpose_point(0, 32, 8, 0));
  EXPECT_TRUE(space.is_valid(space.default_ordinal()));
}

TEST(SearchSpace, NeighboursStepOneTunableToAnAdjacentValidValue) {
  const auto space = transpose_space();
  const auto n = space.neighbours(transpose_point(0, 32, 8, 0));
  // USE_SMEM_TILE 0->1, TILE 32->16, BLOCK_ROWS 8->16; PAD 0->1 breaks a constraint.
  const std::vector<tunable_point> expected{transpose_point(1, 32, 8, 0),
                                            transpose_point(0, 16, 8, 0),
                                            transpose_point(0, 32, 16, 0)};
  EXPECT_EQ(n, expected);
  EXPECT_EQ(space.grid_neighbours(space.default_ordinal()).size(), 4u);
}

TEST(SearchSpace, ATunableClaimsItsMethodAwayFromItsOffValue) {
  const auto space = transpose_space();
  EXPECT_EQ(space.methods(), (std::vector<std::string>{"tiling_smem", "bank_conflict"}));
  EXPECT_TRUE(space.claimed_methods(space.default_point()).empty());
  EXPECT_EQ(space.claimed_methods(transpose_point(1, 32, 8, 0)),
            std::vector<std::string>{"tiling_smem"});
  EXPECT_EQ(space.claimed_methods(transpose_point(1, 32, 8, 1)),
            (std::vector<std::string>{"tiling_smem", "bank_conflict"}));
}

TEST(SearchSpace, TheOffValueIsZeroWhenListedElseTheDefault) {
  EXPECT_EQ(off_value(tunable("SWITCH", {0, 1}, 1)), 0) << "a switch is off at 0 whatever the default";
  EXPECT_EQ(off_value(tunable("VEC", {1, 2, 4}, 1)), 1);
  EXPECT_EQ(off_value(tunable("VEC", {1, 2, 4}, 2)), 2);
}

TEST(SearchSpace, LeaveOneOutTurnsOneMethodOff) {
  const auto space = transpose_space();
  const auto champion = transpose_point(1, 32, 8, 1);
  const auto no_pad = space.leave_one_out(champion, "bank_conflict");
  ASSERT_TRUE(no_pad);
  EXPECT_EQ(no_pad->point, transpose_point(1, 32, 8, 0));
  EXPECT_TRUE(no_pad->adjusted.empty());
  EXPECT_TRUE(no_pad->also_dropped.empty());
}

TEST(SearchSpace, LeaveOneOutRepairsAPointTheConstraintsForbidAndSaysWhatItDropped) {
  const auto space = transpose_space();
  // Without the tile, PAD = 1 breaks "USE_SMEM_TILE == 1 || PAD == 0": padding goes too.
  const auto no_tile = space.leave_one_out(transpose_point(1, 32, 16, 1), "tiling_smem");
  ASSERT_TRUE(no_tile);
  EXPECT_EQ(no_tile->point, transpose_point(0, 32, 16, 0));
  EXPECT_EQ(no_tile->adjusted, std::vector<std::string>{"PAD"});
  EXPECT_EQ(no_tile->also_dropped, std::vector<std::string>{"bank_conflict"});
}

TEST(SearchSpace, LeaveOneOutOfAnUnclaimedMethodIsNone) {
  const auto space = transpose_space();
  EXPECT_FALSE(space.leave_one_out(transpose_point(1, 32, 8, 0), "bank_conflict"));
  EXPECT_FALSE(space.leave_one_out(transpose_point(1, 32, 8, 0), "no_such_method"));
}

TEST(SearchSpace, RowReductionIsTheFullGrid) {
  auto space = search_space::from_problem(load_example("row_reduction"));
  ASSERT_TRUE(space);
  EXPECT_EQ(space->size(), 10u);
  EXPECT_EQ(space->valid_points().size(), 10u);
  EXPECT_EQ(space->claimed_methods({{"BLOCK", 256}, {"WARP_SHUFFLE", 1}}),
            std::vector<std::string>{"warp_shuffle"});
}

TEST(SearchSpace, AGridBeyondTwoToTheSixtySecondIsRefused) {
  std::vector<config::tunable_spec> tunables;
  for (int i = 0; i < 63; ++i)
    tunables.push_back(tunable("T" + std::to_string(i), {0, 1}, 0));
  auto space = search_space::from_tunables(tunables);
  ASSERT_FALSE(space);
  EXPECT_EQ(space.error().code, tuning_error_code::space_too_large);
}

TEST(SearchSpace, NoTunablesIsOnePoint) {
  auto space = search_space::from_tunables({});
  ASSERT_TRUE(space);
  EXPECT_EQ(space->size(), 1u);
  EXPECT_EQ(space->valid_points(), std::vector<tunable_point>{tunable_point{}});
}

TEST(SearchSpace, EveryPointValidityHasAName) {
  for (auto v : all_point_validities)
    EXPECT_EQ(point_validity_from_string(to_string(v)), v);
  EXPECT_FALSE(point_validity_from_string("fine"));
  for (auto c : all_tuning_error_codes)
    EXPECT_EQ(tuning_error_code_from_string(to_string(c)), c);
  EXPECT_FALSE(tuning_error_code_from_string("other"));
}

TEST(PointText, IsNameOrderedAndRoundTrips) {
  const tunable_point p{{"TILE", 32}, {"PAD", 0}, {"NEG", -4}};
  EXPECT_EQ(canonical_text(p), "NEG=-4,PAD=0,TILE=32");
  EXPECT_EQ(parse_point_text(canonical_text(p)), p);
  EXPECT_EQ(parse_point_text(""), tunable_point{});
}

TEST(PointText, MalformedTextIsNone) {
  for (const char* bad : {"TILE", "TILE=", "=3", "TILE=3x", "TILE=1,TILE=2", "A=1,", ",A=1"})
    EXPECT_FALSE(parse_point_text(bad)) << bad;
}

} // namespace
} // namespace warpforge::tuning
