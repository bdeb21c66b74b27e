#include "diagnosis/metric_schema.hpp"

#include "metric_sets.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace warpforge::diagnosis;
using warpforge::toml_reader::placed_error;
using warpforge::toml_reader::placed_errors;

namespace {

// The first error whose key is `key`, or nullptr.
const placed_error* find_error(const placed_errors& errors, std::string_view key) {
  for (const auto& e : errors)
    if (e.key == key)
      return &e;
  return nullptr;
}

placed_errors schema_errors(std::string_view text) {
  auto parsed = parse_metric_schema(text, "test.toml");
  EXPECT_FALSE(parsed) << "the schema loaded";
  return parsed ? placed_errors{} : parsed.error();
}

constexpr std::string_view two_metrics = R"(sections = ["Memory", "Warp stalls"]

[[metric]]
key = "dram_bytes_read"
label = "DRAM bytes read"
unit = "bytes"
section = "Memory"
nsight = "dram__bytes_read.sum"

[[metric]]
key = "dram_bytes_write"
label = "DRAM bytes written"
unit = "bytes"
section = "Memory"
nsight = "dram__bytes_write.sum"
)";

} // namespace

TEST(metric_schema, the_builtin_schema_loads_with_unique_nsight_names) {
  const metric_schema& schema = builtin_metric_schema();
  EXPECT_GE(schema.metrics().size(), 60u);
  std::set<std::string> names;
  for (const auto& name : schema.nsight_names()) {
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_NE(name.find("__"), std::string::npos) << name;
  }
  for (const auto& section : schema.sections()) {
    bool used = false;
    for (const auto& m : schema.metrics())
      used = used || m.section == section;
    EXPECT_TRUE(used) << "section '" << section << "' has no metric";
  }
}

TEST(metric_schema, the_builtin_schema_maps_the_documented_keys_to_their_nsight_names) {
  const metric_schema& schema = builtin_metric_schema();
  const std::pair<std::string_view, std::string_view> expected[] = {
    {"dram_throughput", "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"sm_throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"l1_hit_rate", "l1tex__t_sector_hit_rate.pct"},
    {"l2_hit_rate", "lts__t_sector_hit_rate.pct"},
    {"achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"},
    {"waves_per_sm", "launch__waves_per_multiprocessor"},
    {"duration", "gpu__time_duration.sum"},
    {"ffma_instructions", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"},
    {"stall_long_scoreboard", "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct"},
  };
  for (const auto& [key, nsight] : expected) {
    const metric_definition* m = schema.find(key);
    ASSERT_NE(m, nullptr) << key;
    EXPECT_EQ(m->nsight, nsight);
    EXPECT_EQ(schema.find_nsight(nsight), m);
  }
  EXPECT_EQ(schema.find("dram_throughput")->unit, metric_unit::ratio);
  EXPECT_TRUE(schema.find("flop_fp32")->derived());
  EXPECT_EQ(schema.find_nsight(""), nullptr);
}

TEST(metric_schema, derived_metrics_are_computed_in_dependency_order) {
  const metric_schema& schema = builtin_metric_schema();
  // flop_fp32 = 2 * 1e9 + 2e8 + 1e8 = 2.3e9; flop_total = flop_fp32 + flop_fp16 + flop_fp64 needs
  // the fp16 and fp64 counts too: 2 * 1e6 + 0 + 0 = 2e6 and 0: 2.302e9 FLOP.
  // achieved_flops = 2.302e9 / 1e-3 s = 2.302e12 FLOP/s; dram_bytes = 6e7 + 4e7 = 1e8 B;
  // arithmetic_intensity = 2.302e9 / 1e8 = 23.02 FLOP/B; achieved_dram_bandwidth = 1e11 B/s.
  const metric_values measured{
    {"ffma_instructions", 1e9}, {"fadd_instructions", 2e8}, {"fmul_instructions", 1e8},
    {"hfma_instructions", 1e6}, {"hadd_instructions", 0},   {"hmul_instructions", 0},
    {"dfma_instructions", 0},   {"dadd_instructions", 0},   {"dmul_instructions", 0},
    {"duration", 1e-3},         {"dram_bytes_read", 6e7},   {"dram_bytes_write", 4e7},
  };
  const auto done = schema.complete(measured);
  EXPECT_DOUBLE_EQ(done.values.at("flop_fp32"), 2.3e9);
  EXPECT_DOUBLE_EQ(done.values.at("flop_fp16"), 2e6);
  EXPECT_DOUBLE_EQ(done.values.at("flop_total"), 2.302e9);
  EXPECT_DOUBLE_EQ(done.values.at("achieved_flops"), 2.302e12);
  EXPECT_DOUBLE_EQ(done.values.at("dram_bytes"), 1e8);
  EXPECT_DOUBLE_EQ(done.values.at("arithmetic_intensity"), 23.02);
  EXPECT_DOUBLE_EQ(done.values.at("achieved_dram_bandwidth"), 1e11);
}

TEST(metric_schema,
     a_derived_metric_without_inputs_or_dividing_by_zero_is_left_out_with_the_reason) {
  const metric_schema& schema = builtin_metric_schema();
  const auto done = schema.complete({{"global_load_sectors", 8}, {"global_load_requests", 0}});
  EXPECT_FALSE(done.values.contains("global_load_sectors_per_request"));
  EXPECT_FALSE(done.values.contains("dram_bytes"));
  const derived_gap* per_request = nullptr;
  const derived_gap* bytes = nullptr;
  for (const auto& gap : done.not_derived) {
    if (gap.key == "global_load_sectors_per_request")
      per_request = &gap;
    if (gap.key == "dram_bytes")
      bytes = &gap;
  }
  ASSERT_NE(per_request, nullptr);
  EXPECT_EQ(per_request->problem.kind, warpforge::expression::error_kind::division_by_zero);
  ASSERT_NE(bytes, nullptr);
  EXPECT_EQ(bytes->problem.kind, warpforge::expression::error_kind::unknown_name);
  EXPECT_EQ(bytes->problem.names,
            (std::vector<std::string>{"dram_bytes_read", "dram_bytes_write"}));
}

TEST(metric_schema, a_measured_value_under_a_derived_key_is_kept) {
  const auto done = builtin_metric_schema().complete(
    {{"dram_bytes", 7.0}, {"dram_bytes_read", 1.0}, {"dram_bytes_write", 1.0}});
  EXPECT_EQ(done.values.at("dram_bytes"), 7.0);
}

TEST(metric_schema, a_small_schema_parses_in_file_order) {
  auto schema = parse_metric_schema(two_metrics, "small.toml");
  ASSERT_TRUE(schema) << to_string(schema.error());
  ASSERT_EQ(schema->metrics().size(), 2u);
  EXPECT_EQ(schema->metrics()[0].key, "dram_bytes_read");
  EXPECT_EQ(schema->metrics()[0].line, 3u);
  EXPECT_EQ(schema->sections(), (std::vector<std::string>{"Memory", "Warp stalls"}));
  EXPECT_EQ(schema->nsight_names(),
            (std::vector<std::string>{"dram__bytes_read.sum", "dram__bytes_write.sum"}));
}

TEST(metric_schema, a_duplicate_key_is_reported_at_its_line_with_the_first_definition) {
  std::string text{two_metrics};
  text.replace(text.find("key = \"dram_bytes_write\""), 24, "key = \"dram_bytes_read\"");
  const auto errors = schema_errors(text);
  const placed_error* e = find_error(errors, "metric.dram_bytes_read.key");
  ASSERT_NE(e, nullptr) << to_string(errors);
  EXPECT_EQ(e->file, "test.toml");
  EXPECT_EQ(e->line, 11u);
  EXPECT_NE(e->message.find("duplicate metric key 'dram_bytes_read'"), std::string::npos);
  EXPECT_EQ(e->hint, "first defined on line 3");
  EXPECT_EQ(to_string(*e).rfind("test.toml:11:", 0), 0u) << to_string(*e);
}

TEST(metric_schema, an_unknown_section_is_reported_with_a_did_you_mean) {
  std::string text{two_metrics};
  text.replace(text.rfind("section = \"Memory\""), 18, "section = \"Memroy\"");
  const auto errors = schema_errors(text);
  const placed_error* e = find_error(errors, "metric.dram_bytes_write.section");
  ASSERT_NE(e, nullptr) << to_string(errors);
  EXPECT_EQ(e->line, 14u);
  EXPECT_EQ(e->column, 11u);
  EXPECT_EQ(e->message, "unknown section 'Memroy'");
  EXPECT_EQ(e->hint, "did you mean 'Memory'?");
}

TEST(metric_schema, a_missing_unit_is_reported_at_the_entry) {
  std::string text{two_metrics};
  text.erase(text.find("unit = \"bytes\"\n"), 15);
  const auto errors = schema_errors(text);
  const placed_error* e = find_error(errors, "metric[0].unit");
  ASSERT_NE(e, nullptr) << to_string(errors);
  EXPECT_EQ(e->line, 3u);
  EXPECT_NE(e->message.find("missing"), std::string::npos);
}

TEST(metric_schema, an_unknown_unit_lists_or_suggests_the_known_ones) {
  std::string text{two_metrics};
  text.replace(text.find("unit = \"bytes\""), 14, "unit = \"byte\"");
  const auto errors = schema_errors(text);
  const placed_error* e = find_error(errors, "metric.dram_bytes_read.unit");
  ASSERT_NE(e, nullptr) << to_string(errors);
  EXPECT_EQ(e->line, 6u);
  EXPECT_EQ(e->hint, "did you mean 'bytes'?");
}

TEST(metric_schema, unknown_fields_and_a_metric_both_measured_and_derived_are_errors) {
  std::string text{two_metrics};
  text.replace(text.find("nsight = \"dram__bytes_read.sum\""), 31,
               "nsight = \"dram__bytes_read.sum\"\nformula = \"1\"\nunits = \"x\"");
  const auto errors = schema_errors(text);
  ASSERT_NE(find_error(errors, "metric.dram_bytes_read"), nullptr) << to_string(errors);
  const placed_error* unknown = find_error(errors, "metric[0].units");
  ASSERT_NE(unknown, nullptr) << to_string(errors);
  EXPECT_EQ(unknown->hint, "did you mean 'unit'?");
}

TEST(metric_schema, a_name_that_is_not_an_nsight_metric_is_rejected) {
  std::string text{two_metrics};
  text.replace(text.find("dram__bytes_read.sum"), 20, "dram bytes read");
  const auto errors = schema_errors(text);
  ASSERT_NE(find_error(errors, "metric.dram_bytes_read.nsight"), nullptr) << to_string(errors);
}

TEST(metric_schema, a_formula_naming_an_unknown_key_points_at_its_column) {
  std::string text{two_metrics};
  text += R"(
[[metric]]
key = "dram_bytes"
label = "DRAM bytes"
unit = "bytes"
section = "Memory"
formula = "dram_bytes_read + dram_bytes_writ"
)";
  const auto errors = schema_errors(text);
  const placed_error* e = find_error(errors, "metric.dram_bytes.formula");
  ASSERT_NE(e, nullptr) << to_string(errors);
  EXPECT_EQ(e->line, 22u);
  EXPECT_EQ(e->column, 11u + 19u); // the quote is column 11; the key is the 19th character inside
  EXPECT_EQ(e->message, "unknown metric 'dram_bytes_writ'");
  EXPECT_EQ(e->hint, "did you mean 'dram_bytes_write'?");
}

TEST(metric_schema, a_formula_with_a_syntax_error_or_a_truth_value_is_rejected) {
  std::string text{two_metrics};
  text += R"(
[[metric]]
key = "a"
label = "A"
unit = "bytes"
section = "Memory"
formula = "dram_bytes_read +"

[[metric]]
key = "b"
label = "B"
unit = "bytes"
section = "Memory"
formula = "dram_bytes_read > 1"
)";
  const auto errors = schema_errors(text);
  const placed_error* syntax = find_error(errors, "metric.a.formula");
  ASSERT_NE(syntax, nullptr) << to_string(errors);
  EXPECT_EQ(syntax->column, 11u + 18u);
  const placed_error* truth = find_error(errors, "metric.b.formula");
  ASSERT_NE(truth, nullptr) << to_string(errors);
  EXPECT_NE(truth->message.find("must be a number"), std::string::npos);
}

TEST(metric_schema, formulas_that_depend_on_themselves_are_rejected) {
  std::string text{two_metrics};
  text += R"(
[[metric]]
key = "a"
label = "A"
unit = "count"
section = "Memory"
formula = "b + 1"

[[metric]]
key = "b"
label = "B"
unit = "count"
section = "Memory"
formula = "a * 2"
)";
  const auto errors = schema_errors(text);
  ASSERT_EQ(errors.size(), 1u) << to_string(errors);
  EXPECT_NE(errors[0].message.find("a -> b -> a"), std::string::npos) << errors[0].message;
}

TEST(metric_schema, a_toml_syntax_error_names_line_and_column) {
  const auto errors = schema_errors("sections = [\"Memory\"\n[[metric]]\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 2u);
  EXPECT_NE(errors[0].message.find("TOML syntax error"), std::string::npos);
}

TEST(metric_schema, every_error_of_a_file_is_reported_in_line_order) {
  std::string text{two_metrics};
  text.replace(text.find("unit = \"bytes\""), 14, "unit = \"bites\"");
  text.replace(text.rfind("section = \"Memory\""), 18, "section = \"Nowhere\"");
  const auto errors = schema_errors(text);
  ASSERT_EQ(errors.size(), 2u) << to_string(errors);
  EXPECT_LT(errors[0].line, errors[1].line);
}

TEST(metric_schema, loading_a_missing_file_names_it) {
  auto loaded = load_metric_schema("/nonexistent/metric_schema.toml");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error()[0].file, "/nonexistent/metric_schema.toml");
  EXPECT_EQ(loaded.error()[0].line, 0u);
}

TEST(metric_schema, the_data_file_in_the_tree_matches_the_builtin) {
  auto loaded = load_metric_schema(std::filesystem::path{WARPFORGE_SOURCE_DIR} / "diagnosis" /
                                   "data" / "metric_schema.toml");
  ASSERT_TRUE(loaded) << to_string(loaded.error());
  EXPECT_EQ(loaded->metrics().size(), builtin_metric_schema().metrics().size());
}
