// The bounds a spec may not pass (config/defaults.hpp): values of one tunable, points of the
// search space, a job name's length and characters. Each refusal names the place and the bound;
// what stays within them loads, and a long list loads fast (duplicates are found in O(n)).

#include "config/campaign_spec.hpp"
#include "config/defaults.hpp"
#include "config/problem_spec.hpp"

#include "fixture.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace warpforge::config {
namespace {

using testing::find_error;
using testing::fixture;

// A problem whose tunables are given as TOML text (each a [[tunables]] table).
std::string problem_with(const std::string& tunables) {
  return "name = \"bounds\"\n[kernel]\nsource = \"kernel.cu\"\nentry = \"scale\"\n" + tunables +
         "[[args]]\nname = \"x\"\ndtype = \"f64\"\ncount = 64\nrole = \"output\"\n"
         "[launch]\ngrid = [1]\nblock = [64]\n";
}

std::string value_list(std::size_t count, std::int64_t first = 1) {
  std::string out = "[";
  for (std::size_t i = 0; i < count; ++i)
    out += (i ? "," : "") + std::to_string(first + static_cast<std::int64_t>(i));
  return out + "]";
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(SpecBounds, AMillionValueListIsRefusedWithTheBoundAndItsPlace) {
  const auto text = problem_with("[[tunables]]\nname = \"T\"\nvalues = " + value_list(1'000'000) + "\n");
  const auto start = std::chrono::steady_clock::now();
  auto spec = parse_problem(text, fixture("inline.toml"));
  ASSERT_FALSE(spec.has_value());
  const auto* error = find_error(spec.error(), "tunables[0].values");
  ASSERT_NE(error, nullptr) << to_string(spec.error());
  EXPECT_EQ(error->line, 7u);
  EXPECT_NE(error->message.find("1000000 values, more than " + std::to_string(defaults::max_tunable_values)),
            std::string::npos)
    << error->message;
  EXPECT_LT(seconds_since(start), 5.0) << "refusing the list must not read it value by value against the others";
}

TEST(SpecBounds, AListAtTheBoundLoadsFastAndItsDuplicateIsFound) {
  const auto at_bound = value_list(defaults::max_tunable_values);
  const auto start = std::chrono::steady_clock::now();
  auto spec = parse_problem(problem_with("[[tunables]]\nname = \"T\"\nvalues = " + at_bound + "\n"), fixture("inline.toml"));
  EXPECT_LT(seconds_since(start), 1.0);
  ASSERT_TRUE(spec.has_value()) << to_string(spec.error());
  ASSERT_EQ(spec->tunables.size(), 1u);
  EXPECT_EQ(spec->tunables[0].values.size(), defaults::max_tunable_values);

  // The same list with its last value repeating the first.
  auto repeated = value_list(defaults::max_tunable_values - 1);
  repeated.back() = ',';
  repeated += "1]";
  auto twice = parse_problem(problem_with("[[tunables]]\nname = \"T\"\nvalues = " + repeated + "\n"), fixture("inline.toml"));
  ASSERT_FALSE(twice.has_value());
  const auto key = "tunables[0].values[" + std::to_string(defaults::max_tunable_values - 1) + "]";
  const auto* error = find_error(twice.error(), key);
  ASSERT_NE(error, nullptr) << to_string(twice.error());
  EXPECT_NE(error->message.find("value 1 is listed twice"), std::string::npos);
}

TEST(SpecBounds, ASpaceLargerThanTheBoundNamesTheTunableWhereItCrossed) {
  // 4096^3 = 2^36 points fit; a fourth tunable of 4096 values makes 2^48, past 2^40.
  std::string tunables;
  for (const char* name : {"A", "B", "C", "D"})
    tunables += "[[tunables]]\nname = \"" + std::string{name} + "\"\nrange = { from = 1, to = 4096 }\n";
  auto spec = parse_problem(problem_with(tunables), fixture("inline.toml"));
  ASSERT_FALSE(spec.has_value());
  const auto* error = find_error(spec.error(), "tunables[3]");
  ASSERT_NE(error, nullptr) << to_string(spec.error());
  EXPECT_EQ(error->line, 14u); // the fourth [[tunables]] header
  EXPECT_NE(error->message.find("'D'"), std::string::npos) << error->message;
  EXPECT_NE(error->message.find(std::to_string(defaults::max_search_space_points)), std::string::npos);

  // Three of them (2^36 points, a legitimate large space) load.
  std::string three;
  for (const char* name : {"A", "B", "C"})
    three += "[[tunables]]\nname = \"" + std::string{name} + "\"\nrange = { from = 1, to = 4096 }\n";
  auto large = parse_problem(problem_with(three), fixture("inline.toml"));
  ASSERT_TRUE(large.has_value()) << to_string(large.error());
  EXPECT_EQ(large->tunables.size(), 3u);
}

TEST(SpecBounds, JobNamesAreBoundedAndMadeOfPortableCharacters) {
  EXPECT_EQ(job_name_problem("transpose_v2.fp16-a"), std::nullopt);
  EXPECT_EQ(job_name_problem(std::string(defaults::max_job_name_chars, 'a')), std::nullopt);
  const auto too_long = job_name_problem(std::string(defaults::max_job_name_chars + 1, 'a'));
  ASSERT_TRUE(too_long.has_value());
  EXPECT_NE(too_long->find("more than " + std::to_string(defaults::max_job_name_chars)), std::string::npos);
  for (const char* bad : {"", "a/b", "..", ".hidden", "-flag", "two words", "tab\there"})
    EXPECT_TRUE(job_name_problem(bad).has_value()) << "'" << bad << "' was accepted";
}

TEST(SpecBounds, ACampaignWithA300CharacterJobNameIsRefusedAtTheName) {
  const std::string text = "name = \"long\"\n[[jobs]]\nproblem = \"valid_problem.toml\"\nname = \"" +
                           std::string(300, 'j') + "\"\n";
  auto spec = parse_campaign(text, fixture("inline_campaign.toml"));
  ASSERT_FALSE(spec.has_value());
  const auto* error = find_error(spec.error(), "jobs[0].name");
  ASSERT_NE(error, nullptr) << to_string(spec.error());
  EXPECT_EQ(error->line, 4u);
  EXPECT_NE(error->message.find("300 characters, more than " + std::to_string(defaults::max_job_name_chars)),
            std::string::npos)
    << error->message;
  EXPECT_NE(error->hint.find("name = "), std::string::npos);

  auto slash = parse_campaign("name = \"x\"\n[[jobs]]\nproblem = \"valid_problem.toml\"\nname = \"a/../../b\"\n",
                              fixture("inline_campaign.toml"));
  ASSERT_FALSE(slash.has_value());
  ASSERT_NE(find_error(slash.error(), "jobs[0].name"), nullptr);
  EXPECT_NE(find_error(slash.error(), "jobs[0].name")->message.find("'/'"), std::string::npos);
}

} // namespace
} // namespace warpforge::config
