#include "diagnosis/ncu_csv.hpp"
#include "diagnosis/diagnose.hpp"

#include "metric_sets.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace warpforge::diagnosis;
using namespace warpforge::diagnosis::testing;

namespace {

std::string read_fixture(std::string_view name) {
  std::ifstream in{fixture(name)};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

ncu_report parse_fixture() {
  auto report = parse_ncu_raw_csv(read_fixture("ncu_raw_copy_transpose.csv"));
  EXPECT_TRUE(report) << (report ? "" : to_string(report.error()));
  return report ? *report : ncu_report{};
}

constexpr std::string_view small_csv =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Block Size\",\"Grid "
    "Size\",\"Device\",\"CC\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\","
    "\"gpu__time_duration.sum\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"%\",\"nsecond\"\n"
    "\"0\",\"1\",\"p\",\"h\",\"k(int)\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, "
    "1)\",\"0\",\"9.0\",\"50.5\",\"1,000\"\n";

} // namespace

TEST(ncu_csv, every_parse_failure_round_trips_through_its_name) {
  for (auto failure : all_ncu_parse_failures)
    EXPECT_EQ(ncu_parse_failure_from_string(to_string(failure)), failure);
  EXPECT_FALSE(ncu_parse_failure_from_string("bad"));
}

TEST(ncu_csv, the_fixture_parses_into_three_launches_skipping_program_output_and_prof_lines) {
  const ncu_report report = parse_fixture();
  ASSERT_EQ(report.launches.size(), 3u);
  EXPECT_EQ(report.skipped_lines, 6u);
  const ncu_launch& copy = report.launches[0];
  EXPECT_EQ(copy.id, "0");
  EXPECT_EQ(copy.kernel_name, "copy_kernel(const float *, float *, unsigned long)");
  EXPECT_EQ(copy.block_size, "(256, 1, 1)");
  EXPECT_EQ(copy.grid_size, "(262144, 1, 1)");
  EXPECT_EQ(copy.cc, "9.0");
  EXPECT_EQ(copy.line, 9u);
  EXPECT_EQ(copy.values.size(), 37u);
  const ncu_value* requests = copy.find("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
  ASSERT_NE(requests, nullptr);
  EXPECT_EQ(requests->text, "2,097,152"); // thousands separators as ncu prints them
  EXPECT_EQ(requests->value, 2097152.0);
  EXPECT_EQ(requests->unit, "request");
  const ncu_value* hmma =
      copy.find("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active");
  ASSERT_NE(hmma, nullptr);
  EXPECT_FALSE(hmma->value); // "n/a"
  EXPECT_EQ(report.launches[1].kernel_name, "transpose_naive(const float *, float *, int, int)");
}

TEST(ncu_csv, the_longest_launch_is_chosen_by_duration_and_optionally_by_name) {
  const ncu_report report = parse_fixture();
  const ncu_launch* longest = longest_launch(report);
  ASSERT_NE(longest, nullptr);
  EXPECT_EQ(longest->id, "0"); // 178.02 us beats the second copy's 177.95 us
  EXPECT_EQ(longest_launch(report, "transpose")->id, "1");
  EXPECT_EQ(longest_launch(report, "gemm"), nullptr);
}

TEST(ncu_csv, a_launch_maps_onto_the_schema_with_unit_conversions) {
  const ncu_report report = parse_fixture();
  const schema_mapping m = map_to_schema(report.launches[0], builtin_metric_schema());
  // %: 91.04 -> 0.9104; usecond: 178.02 -> 178.02e-6 s; Mbyte: 268.44 -> 268.44e6 B.
  EXPECT_DOUBLE_EQ(m.values.at("dram_throughput"), 0.9104);
  EXPECT_DOUBLE_EQ(m.values.at("duration"), 178.02e-6);
  EXPECT_DOUBLE_EQ(m.values.at("dram_bytes_read"), 268.44e6);
  EXPECT_DOUBLE_EQ(m.values.at("registers_per_thread"), 16.0);
  EXPECT_DOUBLE_EQ(m.values.at("waves_per_sm"), 248.24);
  EXPECT_DOUBLE_EQ(m.values.at("global_store_efficiency"), 1.0);
  EXPECT_FALSE(m.values.contains("tensor_hmma_pipe"));
  ASSERT_EQ(m.skipped.size(), 1u);
  EXPECT_EQ(m.skipped[0].key, "tensor_hmma_pipe");
  EXPECT_EQ(m.skipped[0].reason, "no value ('n/a')");
  EXPECT_TRUE(m.unmapped.empty());
  // Schema metrics the fixture did not collect are listed by Nsight name.
  EXPECT_NE(std::find(m.missing.begin(), m.missing.end(),
                      "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"),
            m.missing.end());
  EXPECT_EQ(m.values.size() + m.skipped.size() + m.missing.size(),
            builtin_metric_schema().nsight_names().size());
}

TEST(ncu_csv, the_fixture_transpose_is_diagnosed_as_poorly_coalesced) {
  const ncu_report report = parse_fixture();
  const ncu_launch* transpose = longest_launch(report, "transpose_naive");
  ASSERT_NE(transpose, nullptr);
  const schema_mapping m = map_to_schema(*transpose, builtin_metric_schema());
  const diagnosis d = diagnose(m.values, describe_gpu(builtin_gpu_table(), h100_sxm_device()));
  bool coalescing = false;
  for (const auto& f : d.findings)
    coalescing = coalescing || f.rule_id == "poor_coalescing";
  EXPECT_TRUE(coalescing);
  EXPECT_DOUBLE_EQ(d.metrics.at("global_store_sectors_per_request"), 32.0);
}

TEST(ncu_csv, a_unit_of_the_wrong_kind_is_skipped_with_the_reason) {
  std::string text{small_csv};
  text.replace(text.find("\"%\""), 3, "\"byte\"");
  auto report = parse_ncu_raw_csv(text);
  ASSERT_TRUE(report) << to_string(report.error());
  const schema_mapping m = map_to_schema(report->launches[0], builtin_metric_schema());
  ASSERT_EQ(m.skipped.size(), 1u);
  EXPECT_EQ(m.skipped[0].key, "dram_throughput");
  EXPECT_NE(m.skipped[0].reason.find("'byte'"), std::string::npos) << m.skipped[0].reason;
  EXPECT_DOUBLE_EQ(m.values.at("duration"), 1e-6);
}

TEST(ncu_csv, crlf_line_ends_and_unknown_columns_are_accepted) {
  std::string text{small_csv};
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 2))
    text.insert(at, "\r");
  text.replace(text.find("\"gpu__time_duration.sum\""), 24, "\"foo__bar.sum\"");
  auto report = parse_ncu_raw_csv(text);
  ASSERT_TRUE(report) << to_string(report.error());
  ASSERT_EQ(report->launches.size(), 1u);
  EXPECT_EQ(report->launches[0].kernel_name, "k(int)");
  const schema_mapping m = map_to_schema(report->launches[0], builtin_metric_schema());
  EXPECT_EQ(m.unmapped, std::vector<std::string>{"foo__bar.sum"});
}

TEST(ncu_csv, malformed_output_is_rejected_with_the_line) {
  auto none = parse_ncu_raw_csv("==PROF== Connected\n==ERROR== ERR_NVGPUCTRPERM\n");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().failure, ncu_parse_failure::no_header);

  std::string short_row{small_csv};
  short_row.erase(short_row.rfind(",\"1,000\""));
  short_row += "\n";
  auto fields = parse_ncu_raw_csv(short_row);
  ASSERT_FALSE(fields);
  EXPECT_EQ(fields.error().failure, ncu_parse_failure::wrong_field_count);
  EXPECT_EQ(fields.error().line, 3u);
  EXPECT_EQ(to_string(fields.error()), "line 3: wrong_field_count: 12 fields, the header has 13");

  std::string no_units{small_csv};
  no_units.erase(no_units.find("\"\",\"\""), no_units.find("\"0\",") - no_units.find("\"\",\"\""));
  auto units = parse_ncu_raw_csv(no_units);
  ASSERT_FALSE(units);
  EXPECT_EQ(units.error().failure, ncu_parse_failure::no_units_row);
  EXPECT_EQ(units.error().line, 2u);

  std::string open_quote{small_csv};
  open_quote += "\"1,\"2,\"3\n";
  auto quote = parse_ncu_raw_csv(open_quote);
  ASSERT_FALSE(quote);
  EXPECT_EQ(quote.error().failure, ncu_parse_failure::unterminated_quote);
  EXPECT_EQ(quote.error().line, 4u);
}

TEST(ncu_csv, cupti_style_base_unit_values_map_onto_the_schema) {
  const nsight_values values{{"dram__throughput.avg.pct_of_peak_sustained_elapsed", 91.04},
                             {"gpu__time_duration.sum", 178020.0},
                             {"dram__bytes_read.sum", 268.44e6},
                             {"something__else.sum", 1.0}};
  const schema_mapping m = map_base_units(values, builtin_metric_schema());
  EXPECT_DOUBLE_EQ(m.values.at("dram_throughput"), 0.9104);
  EXPECT_DOUBLE_EQ(m.values.at("duration"), 178.02e-6);
  EXPECT_DOUBLE_EQ(m.values.at("dram_bytes_read"), 268.44e6);
  EXPECT_EQ(m.unmapped, std::vector<std::string>{"something__else.sum"});
}
