// A problem's weighted configurations: [[configs]] inline or from a configs_file, their
// validation (every error names its file, key and place, and the config it is about), the
// normalised view problem_configs() gives, and resolving the problem at each configuration.

#include "config/problem_configs.hpp"
#include "config/resolved_problem.hpp"

#include "fixture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace warpforge::config {
namespace {

using testing::expect_error;
using testing::fixture;

// A scale problem (the fixture kernel) whose count needs N > 512; `configs` is appended, `root`
// (root keys, one line) goes first and moves every line down by one.
std::string problem_text(const std::string& configs, const std::string& root = "") {
  return root +
         "name = \"scale\"\n"                                // 1
         "[kernel]\n"                                        // 2
         "source = \"kernel.cu\"\n"                          // 3
         "entry = \"scale\"\n"                               // 4
         "[dims]\n"                                          // 5
         "N = 2048\n"                                        // 6
         "M = 1\n"                                           // 7
         "[[tunables]]\n"                                    // 8
         "name = \"BLOCK\"\n"                                // 9
         "values = [128, 256]\n"                             // 10
         "[[args]]\n"                                        // 11
         "name = \"x\"\n"                                    // 12
         "dtype = \"f32\"\n"                                 // 13
         "count = \"(N - 512) * M\"\n"                       // 14
         "role = \"inout\"\n"                                // 15
         "[[args]]\n"                                        // 16
         "name = \"n\"\n"                                    // 17
         "dtype = \"i32\"\n"                                 // 18
         "value = \"(N - 512) * M\"\n"                       // 19
         "[launch]\n"                                        // 20
         "grid = [\"ceil_div((N - 512) * M, BLOCK)\"]\n"     // 21
         "block = [\"BLOCK\"]\n" +                           // 22
         configs;                                            // 23 on
}

const std::filesystem::path spec_file = fixture("configs_problem.toml"); // its folder holds kernel.cu

expected<problem_spec, toml_reader::placed_errors> parse(const std::string& configs,
                                                         const std::string& root = "") {
  return parse_problem(problem_text(configs, root), spec_file);
}

toml_reader::placed_errors errors_of(const std::string& configs, const std::string& root = "") {
  auto spec = parse(configs, root);
  EXPECT_FALSE(spec.has_value()) << "loaded";
  return spec ? toml_reader::placed_errors{} : spec.error();
}

const std::string two_inline = "[[configs]]\n"          // 23
                               "name = \"large\"\n"     // 24
                               "weight = 3\n"           // 25
                               "dims = { N = 4096 }\n"  // 26
                               "[[configs]]\n"          // 27
                               "weight = 1\n"           // 28
                               "dims = { N = 1024, M = 2 }\n"; // 29

TEST(ProblemConfigs, InlineConfigsLoadWithNormalisedWeightsAndEveryDim) {
  auto spec = parse(two_inline);
  ASSERT_TRUE(spec) << to_string(spec.error());
  ASSERT_EQ(spec->configs.size(), 2u);
  EXPECT_EQ(spec->configs[1].name, "config-2"); // no name: its place among the configs
  EXPECT_EQ(spec->configs[0].place.line, 23u);
  const auto configs = problem_configs(*spec);
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[0].name, "large");
  EXPECT_DOUBLE_EQ(configs[0].weight, 0.75);
  EXPECT_DOUBLE_EQ(configs[1].weight, 0.25);
  EXPECT_EQ(configs[0].dims, (expression::integer_values{{"N", 4096}, {"M", 1}})); // M from [dims]
  EXPECT_EQ(configs[1].dims, (expression::integer_values{{"N", 1024}, {"M", 2}}));
  EXPECT_EQ(configs[0].origin, spec_file.string() + ":23");
}

TEST(ProblemConfigs, AProblemWithoutConfigsIsOneConfigNamedAfterItWithWeightOne) {
  auto spec = parse("");
  ASSERT_TRUE(spec) << to_string(spec.error());
  const auto configs = problem_configs(*spec);
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_EQ(configs[0].name, "scale");
  EXPECT_EQ(configs[0].weight, 1.0);
  EXPECT_EQ(configs[0].dims, (expression::integer_values{{"N", 2048}, {"M", 1}}));
  // Resolving at it is resolving at [dims].
  const auto point = default_point(*spec);
  auto at_config = resolve_problem(*spec, point, configs[0]);
  auto at_dims = resolve_problem(*spec, point);
  ASSERT_TRUE(at_config && at_dims);
  EXPECT_EQ(*at_config, *at_dims);
}

TEST(ProblemConfigs, ResolvingAtEachConfigUsesItsDims) {
  auto spec = parse(two_inline);
  ASSERT_TRUE(spec) << to_string(spec.error());
  const auto configs = problem_configs(*spec);
  const auto point = default_point(*spec); // BLOCK = 128
  auto large = resolve_problem(*spec, point, configs[0]);
  auto small = resolve_problem(*spec, point, configs[1]);
  ASSERT_TRUE(large && small);
  EXPECT_EQ(std::get<resolved_buffer>(large->args[0]).count, 3584u);      // (4096 - 512) * 1
  EXPECT_EQ(std::get<resolved_buffer>(small->args[0]).count, 1024u);      // (1024 - 512) * 2
  EXPECT_EQ(std::get<std::int64_t>(std::get<resolved_scalar>(small->args[1]).value), 1024);
  EXPECT_EQ(large->launch.grid[0], 28u);                                  // 3584 / 128
  EXPECT_EQ(small->launch.grid[0], 8u);
  EXPECT_EQ(large->variables.at("N"), 4096);
  EXPECT_EQ(large->defines, small->defines); // the tunables, not the dims
}

TEST(ProblemConfigs, AWeightThatIsNotPositiveIsRejectedAtItsPlace) {
  const auto errors = errors_of("[[configs]]\nweight = 0\n[[configs]]\nweight = -2\n");
  expect_error(errors, spec_file, "configs[0].weight", 24, "must be > 0");
  expect_error(errors, spec_file, "configs[1].weight", 26, "must be > 0, got -2");
}

TEST(ProblemConfigs, ADimThatIsNotDeclaredIsRejectedWithTheLikelyName) {
  const auto errors = errors_of("[[configs]]\ndims = { NN = 4096 }\n");
  const auto* error = expect_error(errors, spec_file, "configs[0].dims.NN", 24, "not a dim of the problem");
  ASSERT_NE(error, nullptr);
  EXPECT_NE(error->hint.find("'N'"), std::string::npos) << error->hint;
}

TEST(ProblemConfigs, ADimValueMustBeAPositiveInteger) {
  const auto errors = errors_of("[[configs]]\ndims = { N = 0, M = \"2\" }\n");
  expect_error(errors, spec_file, "configs[0].dims.N", 24, "positive integer, got 0");
  expect_error(errors, spec_file, "configs[0].dims.M", 24, "positive integer");
}

TEST(ProblemConfigs, NamesAreUnique) {
  const auto errors =
    errors_of("[[configs]]\nname = \"a\"\n[[configs]]\nname = \"b\"\n[[configs]]\nname = \"a\"\n");
  expect_error(errors, spec_file, "configs[2].name", 28, "'a' is used twice (also configs[0])");
}

TEST(ProblemConfigs, AnUnknownKeyInAConfigIsRejectedWithTheLikelyKey) {
  const auto errors = errors_of("[[configs]]\nweigth = 2\n");
  const auto* error = expect_error(errors, spec_file, "configs[0].weigth", 24, "unknown");
  ASSERT_NE(error, nullptr);
  EXPECT_NE(error->hint.find("weight"), std::string::npos) << error->hint;
}

TEST(ProblemConfigs, AnExpressionInvalidAtOneConfigOnlyIsReportedNamingThatConfig) {
  // (N - 512) * M is 0 at N = 512: valid at [dims] and at "large", not at "tiny".
  const auto errors = errors_of("[[configs]]\nname = \"large\"\ndims = { N = 4096 }\n"
                                "[[configs]]\nname = \"tiny\"\ndims = { N = 512 }\n");
  const auto* count = expect_error(errors, spec_file, "args[0].count", 14, "positive element count");
  ASSERT_NE(count, nullptr);
  EXPECT_NE(count->message.find("at config 'tiny', " + spec_file.string() + ":26"), std::string::npos)
    << count->message;
  for (const auto& e : errors)
    EXPECT_EQ(e.message.find("'large'"), std::string::npos) << to_string(e);
}

TEST(ProblemConfigs, AConfigsFileIsReadRelativeToTheSpec) {
  auto spec = parse("", "configs_file = \"configs_two.configs.toml\"\n");
  ASSERT_TRUE(spec) << to_string(spec.error());
  EXPECT_EQ(spec->configs_file, fixture("configs_two.configs.toml"));
  ASSERT_EQ(spec->configs.size(), 2u);
  EXPECT_EQ(spec->configs[1].file, fixture("configs_two.configs.toml").string());
  const auto configs = problem_configs(*spec);
  EXPECT_EQ(configs[1].name, "small");
  EXPECT_DOUBLE_EQ(configs[0].weight, 0.75); // 0.6 / 0.8
  EXPECT_EQ(configs[1].dims, (expression::integer_values{{"N", 1024}, {"M", 2}}));
}

TEST(ProblemConfigs, AMissingConfigsFileIsReportedAtTheKeyNamingTheFile) {
  const auto errors = errors_of("", "configs_file = \"nowhere.configs.toml\"\n");
  const auto* error = expect_error(errors, spec_file, "configs_file", 1, "cannot read the configs file");
  ASSERT_NE(error, nullptr);
  EXPECT_NE(error->message.find(fixture("nowhere.configs.toml").string()), std::string::npos);
}

TEST(ProblemConfigs, AMalformedConfigsFileIsReportedInThatFile) {
  const auto errors = errors_of("", "configs_file = \"configs_malformed.configs.toml\"\n");
  ASSERT_EQ(errors.size(), 1u) << to_string(errors);
  EXPECT_EQ(errors[0].file, fixture("configs_malformed.configs.toml").string());
  EXPECT_EQ(errors[0].line, 4u);
}

TEST(ProblemConfigs, AnInvalidEntryOfAConfigsFileIsReportedInThatFileWithItsKey) {
  const auto errors = errors_of("", "configs_file = \"configs_bad_weight.configs.toml\"\n");
  expect_error(errors, fixture("configs_bad_weight.configs.toml"), "configs[1].weight", 9, "must be > 0");
}

TEST(ProblemConfigs, InlineConfigsAndAConfigsFileTogetherAreRefused) {
  const auto errors =
    errors_of("[[configs]]\ndims = { N = 4096 }\n", "configs_file = \"configs_two.configs.toml\"\n");
  expect_error(errors, spec_file, "configs_file", 1, "not both");
}

} // namespace
} // namespace warpforge::config
