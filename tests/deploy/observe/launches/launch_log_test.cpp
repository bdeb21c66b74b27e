#include "deploy/observe/launches/launch_log.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

using namespace warpforge::observe;
using ::testing::HasSubstr;

namespace {

std::filesystem::path fixture(const char* name) {
  return std::filesystem::path(WARPFORGE_SOURCE_DIR) / "tests/deploy/observe/launches/fixtures" / name;
}

std::string read_error(const char* name) {
  auto log = read_launch_log(fixture(name));
  EXPECT_FALSE(log) << name << " was read without error";
  return log ? std::string() : log.error();
}

} // namespace

TEST(launch_log, a_complete_log_reads_every_launch_in_launch_order) {
  auto log = read_launch_log(fixture("good.jsonl"));
  ASSERT_TRUE(log) << log.error();
  EXPECT_TRUE(log->complete);
  EXPECT_EQ(log->dropped, 2u);
  EXPECT_THAT(log->notes, ::testing::ElementsAre(HasSubstr("without a driver callback")));
  ASSERT_EQ(log->launches.size(), 3u);

  const launch_record& fill = log->launches[0]; // seq 0, written second
  EXPECT_EQ(fill.sequence, 0u);
  EXPECT_EQ(fill.kernel, "fill");
  EXPECT_EQ(fill.grid, (std::array<std::uint32_t, 3>{4, 2, 1}));
  EXPECT_EQ(fill.block, (std::array<std::uint32_t, 3>{32, 8, 1}));
  EXPECT_EQ(fill.dynamic_smem, 1024u);
  EXPECT_EQ(fill.device, 1u);
  EXPECT_DOUBLE_EQ(fill.duration_s, 1e-6);
  ASSERT_EQ(fill.params.size(), 2u);
  EXPECT_EQ(as_signed(fill.params[0]), -7);
  EXPECT_EQ(fill.params[1].offset, 8u);
  EXPECT_EQ(as_float(fill.params[1]), -0.125);

  const launch_record& scale = log->launches[1];
  EXPECT_EQ(scale.sequence, 1u);
  EXPECT_EQ(scale.demangled, "void scale<float>(float*, int, float)");
  EXPECT_TRUE(matches_kernel(scale, "scale"));
  ASSERT_EQ(scale.params.size(), 3u);
  EXPECT_EQ(as_unsigned(scale.params[0]), 0x7f0000a00000u);
  EXPECT_EQ(as_signed(scale.params[1]), 4096);
  EXPECT_EQ(as_float(scale.params[2]), 2.5);

  EXPECT_TRUE(log->launches[2].params.empty());
  EXPECT_EQ(log->launches[2].duration_s, 0.0);
}

TEST(launch_log, a_log_without_the_end_line_is_read_as_incomplete) {
  auto log = read_launch_log(fixture("no_end_line.jsonl"));
  ASSERT_TRUE(log) << log.error();
  EXPECT_FALSE(log->complete);
  EXPECT_EQ(log->launches.size(), 3u);
  EXPECT_TRUE(log->notes.empty());
}

TEST(launch_log, a_cut_off_last_line_of_an_incomplete_log_becomes_a_note) {
  auto log = read_launch_log(fixture("cut_off.jsonl"));
  ASSERT_TRUE(log) << log.error();
  EXPECT_FALSE(log->complete);
  EXPECT_EQ(log->launches.size(), 2u);
  EXPECT_THAT(log->notes, ::testing::ElementsAre(HasSubstr("cut_off.jsonl:3: cut-off last line")));
}

TEST(launch_log, errors_name_the_file_the_line_and_the_key) {
  EXPECT_THAT(read_error("bad_grid_line2.jsonl"),
              HasSubstr("bad_grid_line2.jsonl:2: key \"grid\": not an array of 3 integers"));
  EXPECT_THAT(read_error("malformed_line3.jsonl"),
              HasSubstr("malformed_line3.jsonl:3: not a JSON object"));
  EXPECT_THAT(read_error("unknown_key_line2.jsonl"),
              HasSubstr("unknown_key_line2.jsonl:2: unknown key \"stream\""));
  EXPECT_THAT(read_error("after_end_line5.jsonl"),
              HasSubstr("after_end_line5.jsonl:5: a line after the end line"));
  EXPECT_THAT(read_error("count_mismatch.jsonl"),
              HasSubstr("the end line states 3 launches, the log holds 2"));
  EXPECT_THAT(read_error("does_not_exist.jsonl"), HasSubstr("cannot open the launch log"));
}

TEST(launch_log, parameter_bytes_must_match_their_size) {
  std::string line =
      R"({"seq":0,"kernel":"k","demangled":"k","grid":[1,1,1],"block":[1,1,1],"smem":0,)"
      R"("duration_ns":5,"device":0,"params":[{"offset":0,"size":4,"hex":"0102"}]})"
      "\n";
  auto log = parse_launch_log(line, "inline");
  ASSERT_FALSE(log);
  EXPECT_THAT(log.error(), HasSubstr("inline:1: key \"params[0]\": hex must be 8 lowercase hex digits"));
}

TEST(launch_log, a_repeated_sequence_number_is_an_error) {
  std::string line =
      R"({"seq":4,"kernel":"k","demangled":"k","grid":[1,1,1],"block":[1,1,1],"smem":0,)"
      R"("duration_ns":5,"device":0,"params":[]})"
      "\n";
  auto log = parse_launch_log(line + line, "inline");
  ASSERT_FALSE(log);
  EXPECT_THAT(log.error(), HasSubstr("seq 4 appears twice"));
}
