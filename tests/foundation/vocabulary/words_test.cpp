#include "foundation/vocabulary/artifact_kind.hpp"
#include "foundation/vocabulary/branch.hpp"
#include "foundation/vocabulary/states.hpp"
#include "foundation/vocabulary/timing_mode.hpp"

#include <gtest/gtest.h>

#include <string_view>
#include <utility>
#include <vector>

namespace warpforge::vocabulary {
namespace {

// The text is the on-disk format: these tables pin it, value by value.
template <class Enum, std::size_t N>
void expect_names(const std::array<Enum, N>& all,
                  const std::vector<std::pair<Enum, std::string_view>>& expected_names) {
  ASSERT_EQ(all.size(), expected_names.size()) << "a value is missing from this test";
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i], expected_names[i].first) << "all_* is out of declaration order at " << i;
    EXPECT_EQ(to_string(expected_names[i].first), expected_names[i].second);
    EXPECT_EQ(from_string<Enum>(expected_names[i].second), expected_names[i].first);
  }
  EXPECT_FALSE(from_string<Enum>("no_such_value"));
  EXPECT_FALSE(from_string<Enum>(""));
}

TEST(Vocabulary, CampaignStatesAreStoredAsTheirNames) {
  expect_names(all_campaign_states, {{campaign_state::created, "created"},
                                     {campaign_state::running, "running"},
                                     {campaign_state::finished, "finished"},
                                     {campaign_state::failed, "failed"},
                                     {campaign_state::interrupted, "interrupted"}});
}

TEST(Vocabulary, OnlyFinishedFailedAndInterruptedCampaignsAreTerminal) {
  EXPECT_FALSE(is_terminal(campaign_state::created));
  EXPECT_FALSE(is_terminal(campaign_state::running));
  EXPECT_TRUE(is_terminal(campaign_state::finished));
  EXPECT_TRUE(is_terminal(campaign_state::failed));
  EXPECT_TRUE(is_terminal(campaign_state::interrupted));
}

TEST(Vocabulary, JobStatesAreStoredAsTheirNames) {
  expect_names(all_job_states, {{job_state::pending, "pending"},
                                {job_state::running, "running"},
                                {job_state::finished, "finished"},
                                {job_state::failed, "failed"},
                                {job_state::interrupted, "interrupted"}});
}

TEST(Vocabulary, IterationStatesAreStoredAsTheirNames) {
  expect_names(all_iteration_states, {{iteration_state::running, "running"},
                                      {iteration_state::finished, "finished"},
                                      {iteration_state::failed, "failed"},
                                      {iteration_state::interrupted, "interrupted"}});
}

TEST(Vocabulary, BranchKindsAreStoredAsTheirNames) {
  expect_names(all_branch_kinds, {{branch_kind::branch, "branch"},
                                  {branch_kind::ablation, "ablation"},
                                  {branch_kind::baseline, "baseline"}});
}

TEST(Vocabulary, BranchOutcomesAreStoredAsTheirNames) {
  expect_names(all_branch_outcomes, {{branch_outcome::passed, "passed"},
                                     {branch_outcome::compile_error, "compile_error"},
                                     {branch_outcome::sass_rejected, "sass_rejected"},
                                     {branch_outcome::incorrect, "incorrect"},
                                     {branch_outcome::runtime_error, "runtime_error"},
                                     {branch_outcome::timeout, "timeout"},
                                     {branch_outcome::not_run, "not_run"},
                                     {branch_outcome::not_supported, "not_supported"},
                                     {branch_outcome::interrupted, "interrupted"},
                                     {branch_outcome::inconsistent, "inconsistent"},
                                     {branch_outcome::suspicious, "suspicious"}});
}

TEST(Vocabulary, MeasurementModesAreStoredAsTheirNames) {
  expect_names(all_timing_modes,
               {{timing_mode::warm, "warm"}, {timing_mode::cold, "cold"}});
}

TEST(Vocabulary, ArtifactKindsAreStoredAsTheirNames) {
  expect_names(all_artifact_kinds, {{artifact_kind::source, "source"},
                                    {artifact_kind::compile_log, "compile_log"},
                                    {artifact_kind::ptx, "ptx"},
                                    {artifact_kind::cubin, "cubin"},
                                    {artifact_kind::sass, "sass"},
                                    {artifact_kind::metrics, "metrics"},
                                    {artifact_kind::prompt, "prompt"},
                                    {artifact_kind::response, "response"},
                                    {artifact_kind::report, "report"},
                                    {artifact_kind::log, "log"}});
}

} // namespace
} // namespace warpforge::vocabulary
