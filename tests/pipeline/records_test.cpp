// Issue 26: what a branch's record says of its build. Its row's defines are exactly the -D
// defines NVRTC is given (a model's variant: its own only), a duplicate names the branch it
// repeats, and both survive the iteration's proposal.json (resume and deploy read it back).

#include "pipeline/records.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace warpforge::pipeline {
namespace {

namespace fs = std::filesystem;

candidate model_variant() {
  candidate c;
  c.point = {{"BLOCK_X", 16}, {"BLOCK_Y", 16}};
  c.compiled_defines = define_set::own_only;
  c.source = "extern \"C\" __global__ void sgemm() {}\n";
  c.source_name = "tiled.cu";
  c.defines = {{"TM", 8}, {"BLOCK_X", 32}};
  c.launch = config::launch_geometry{{64, 64, 1}, {32, 8, 1}, 0};
  return c;
}

TEST(BranchRecord, AModelVariantsRowHoldsItsOwnDefinesOnlyATunedPointsItsTunablesAndOwn) {
  planned_branch b{2, 1, std::nullopt, model_variant(), std::nullopt};
  auto row = branch_row(7, b, "jobs/sgemm/iter-2/branch-1/tiled.cu");
  EXPECT_EQ(row.defines_json, R"({"BLOCK_X":32,"TM":8})");
  EXPECT_EQ(row.duplicate_of_iteration, -1);
  EXPECT_EQ(row.duplicate_of_ordinal, -1);

  b.what.compiled_defines = define_set::tunables_and_own;
  b.what.defines = {{"EXTRA", 1}};
  EXPECT_EQ(branch_row(7, b, "").defines_json, R"({"BLOCK_X":16,"BLOCK_Y":16,"EXTRA":1})");
}

TEST(BranchRecord, ADuplicatesRowNamesTheBranchItRepeats) {
  planned_branch b{3, 0, std::nullopt, model_variant(), std::nullopt};
  b.what.duplicate_of = branch_place{1, 2};
  auto row = branch_row(7, b, "");
  EXPECT_EQ(row.duplicate_of_iteration, 1);
  EXPECT_EQ(row.duplicate_of_ordinal, 2);
}

TEST(BranchRecord, TheProposalFileKeepsWhichDefinesAndWhatWasRepeated) {
  const auto run = fs::temp_directory_path() / ("wf-records-" + std::to_string(::getpid()));
  fs::remove_all(run);
  proposal p;
  p.candidates.push_back(model_variant());
  p.candidates.push_back(model_variant());
  p.candidates[1].duplicate_of = branch_place{1, 1};
  p.candidates.push_back(candidate{}); // a tuner's point: the default set, written as before
  p.candidates[2].point = {{"TILE", 32}};
  ASSERT_TRUE(write_proposal(run, "sgemm", 2, p));
  auto read = read_proposal(run, "sgemm", 2);
  fs::remove_all(run);
  ASSERT_TRUE(read) << read.error();
  ASSERT_TRUE(*read);
  ASSERT_EQ((*read)->candidates.size(), 3u);
  EXPECT_EQ((*read)->candidates[0], p.candidates[0]);
  EXPECT_EQ((*read)->candidates[1], p.candidates[1]);
  EXPECT_EQ((*read)->candidates[2].compiled_defines, define_set::tunables_and_own);
  EXPECT_FALSE((*read)->candidates[2].duplicate_of);
}

} // namespace
} // namespace warpforge::pipeline
