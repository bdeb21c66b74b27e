// The built-in catalog: every parameter the four calibrate parts agree on, with sound fields, and
// the parser's shape checks on broken texts.
#include "calibrate/catalog.hpp"

#include <gtest/gtest.h>

#include <set>

namespace warpforge::calibrate {
namespace {

// The names fixed in the shared design (cal.md): C3's benchmarks and C2's simulator mapping use
// them, so a rename here must be a test failure.
const std::vector<std::pair<std::string, std::uint32_t>> agreed_names = {
    {"fp32_fma_latency", 1}, {"fp32_fma_throughput", 1}, {"fp64_fma_latency", 1},
    {"fp64_fma_throughput", 1}, {"fp16_hfma2_latency", 1}, {"fp16_hfma2_throughput", 1},
    {"int32_iadd_latency", 1}, {"int32_imad_latency", 1}, {"int32_imad_throughput", 1},
    {"sfu_rsqrt_latency", 1}, {"sfu_rsqrt_throughput", 1}, {"tensor_mma_f16_latency", 1},
    {"tensor_mma_f16_throughput", 1}, {"tensor_wgmma_f16_throughput", 1}, {"smem_latency", 2},
    {"smem_bandwidth", 2}, {"smem_banks", 2}, {"smem_bank_conflict_penalty", 2},
    {"warp_schedulers_per_sm", 2}, {"branch_divergence_penalty", 2}, {"shfl_latency", 2},
    {"l1_hit_latency", 3}, {"l2_hit_latency", 3}, {"dram_latency", 3}, {"l1_size", 3},
    {"l2_size", 3}, {"l1_line_size", 3}, {"dram_bandwidth", 3}, {"l2_bandwidth", 3},
    {"registers_per_sm", 3}, {"sm_clock_mhz", 4}, {"sm_count", 4}, {"max_warps_per_sm", 4},
    {"max_registers_per_thread", 4}, {"warp_size", 4}};

TEST(CalibrateCatalog, TheBuiltInCatalogLoadsAndPassesItsSelfCheck) {
  auto parsed = catalog::built_in();
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  EXPECT_EQ(parsed->file(), built_in_catalog_file);
  EXPECT_TRUE(self_check(*parsed).empty());
  EXPECT_GE(parsed->parameters().size(), 34u); // the seed's catalog has 34 entries
}

TEST(CalibrateCatalog, HoldsEveryAgreedNameAtItsAgreedPriority) {
  auto parsed = catalog::built_in();
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  for (const auto& [name, priority] : agreed_names) {
    const parameter* p = parsed->find(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->priority, priority) << name;
  }
}

TEST(CalibrateCatalog, CoversEveryCategoryOfTheSeed) {
  auto parsed = catalog::built_in();
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  std::set<category> seen;
  for (const auto& p : parsed->parameters())
    seen.insert(p.group);
  for (auto group : all_categories)
    EXPECT_TRUE(seen.contains(group)) << to_string(group);
}

TEST(CalibrateCatalog, EveryBenchmarkedParameterStatesItsSassAndEveryKnownValueCitesASource) {
  auto parsed = catalog::built_in();
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  std::size_t known_count = 0;
  for (const auto& p : parsed->parameters()) {
    if (p.priority <= 3) {
      EXPECT_FALSE(p.expected_sass.empty()) << p.name;
    }
    EXPECT_FALSE(p.validation_metrics.empty()) << p.name;
    for (const auto& known : p.known) {
      EXPECT_NE(known.source.find('['), std::string::npos) << p.name << " cites " << known.source;
      ++known_count;
    }
  }
  EXPECT_GT(known_count, 20u);
}

TEST(CalibrateCatalog, ReadsEveryFieldOfAnEntry) {
  auto parsed = catalog::built_in();
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  const parameter* p = parsed->find("fp32_fma_throughput");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->group, category::instruction_throughput);
  EXPECT_EQ(p->unit, "ops/clk/SM");
  EXPECT_EQ(p->depends_on, std::vector<std::string>{"fp32_fma_latency"});
  EXPECT_EQ(p->expected_sass, std::vector<std::string>{"FFMA"});
  EXPECT_LT(p->range_min, p->range_max);
  EXPECT_GT(p->line, 0u);
  auto sm90 = known_for(*p, "sm_90");
  ASSERT_TRUE(sm90.has_value());
  EXPECT_DOUBLE_EQ(sm90->value, 128.0);
  auto sm80 = known_for(*p, "sm_80");
  ASSERT_TRUE(sm80.has_value());
  EXPECT_DOUBLE_EQ(sm80->value, 64.0);
}

TEST(CalibrateCatalog, KnownForMatchesTheArchSpecificTargetAndNothingElse) {
  parameter p;
  p.known = {{"sm_90", 4096, "[HOPPER-WP]"}, {"sm_80", 2048, "[AMPERE-WP]"}};
  ASSERT_TRUE(known_for(p, "sm_90a").has_value());
  EXPECT_DOUBLE_EQ(known_for(p, "sm_90a")->value, 4096);
  EXPECT_DOUBLE_EQ(known_for(p, "sm_80")->value, 2048);
  EXPECT_FALSE(known_for(p, "sm_89").has_value());
  EXPECT_FALSE(known_for(p, "").has_value());
}

TEST(CalibrateCatalog, EveryCategoryRoundTripsThroughItsName) {
  for (auto group : all_categories)
    EXPECT_EQ(category_from_string(to_string(group)), group);
  EXPECT_FALSE(category_from_string("cache").has_value());
}

constexpr std::string_view one_entry = R"([[parameter]]
name = "x_latency"
category = "instruction_latency"
unit = "cycles"
priority = 1
technique = "a chain"
range = [1.0, 10.0]
expected_sass = ["FFMA"]
validation_metrics = ["m"]
description = "d"
)";

TEST(CalibrateCatalog, ParsesAMinimalEntryWithNoDependenciesOrKnownValues) {
  auto parsed = catalog::parse(one_entry, "mine.toml");
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  ASSERT_EQ(parsed->parameters().size(), 1u);
  EXPECT_TRUE(parsed->parameters()[0].depends_on.empty());
  EXPECT_TRUE(parsed->parameters()[0].known.empty());
  EXPECT_EQ(parsed->parameters()[0].line, 1u);
  EXPECT_EQ(parsed->find("nope"), nullptr);
}

TEST(CalibrateCatalog, AnUnknownCategoryIsAnErrorListingTheCategories) {
  std::string text{one_entry};
  text.replace(text.find("instruction_latency"), 19, "instruction_latncy");
  auto parsed = catalog::parse(text, "mine.toml");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_NE(parsed.error().find("mine.toml:3"), std::string::npos) << parsed.error();
  EXPECT_NE(parsed.error().find("instruction_latency"), std::string::npos) << parsed.error();
}

TEST(CalibrateCatalog, EveryShapeErrorOfAFileIsReportedWithItsPlace) {
  std::string text{one_entry};
  text.replace(text.find("range = [1.0, 10.0]"), 19, "range = [1.0]");
  text.replace(text.find("unit = \"cycles\""), 15, "units = \"cycles\"");
  text += "known = [ { arch = \"sm_90\", value = \"four\", source = \"s\" } ]\n";
  auto parsed = catalog::parse(text, "mine.toml");
  ASSERT_FALSE(parsed.has_value());
  const std::string& error = parsed.error();
  EXPECT_NE(error.find("parameter[0].range"), std::string::npos) << error;
  EXPECT_NE(error.find("units"), std::string::npos) << error;        // unknown key
  EXPECT_NE(error.find("'unit'"), std::string::npos) << error;       // missing required key
  EXPECT_NE(error.find("known[0].value"), std::string::npos) << error;
}

TEST(CalibrateCatalog, AMethodAndARederiveFormulaAreRead) {
  std::string text{one_entry};
  text += "method = \"one window over the chase\"\n"
          "rederive = { count = \"dram__bytes_read.sum\", over = \"gpu__time_duration.sum\", scale = 1e-9 }\n";
  auto parsed = catalog::parse(text, "mine.toml");
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  const auto& p = parsed->parameters()[0];
  EXPECT_EQ(p.method, "one window over the chase");
  ASSERT_TRUE(p.rederive);
  EXPECT_EQ(p.rederive->count, "dram__bytes_read.sum");
  EXPECT_EQ(p.rederive->over, "gpu__time_duration.sum");
  EXPECT_DOUBLE_EQ(p.rederive->scale, 1e-9);
  EXPECT_FALSE(catalog::parse(one_entry, "mine.toml")->parameters()[0].rederive) << "optional";
}

TEST(CalibrateCatalog, ASizeRuleIsReadAndAnUnknownOneListsTheRules) {
  std::string text{one_entry};
  text.replace(text.find("unit = \"cycles\""), 15, "unit = \"MiB\"");
  auto onset = catalog::parse(text, "mine.toml");
  ASSERT_TRUE(onset.has_value()) << onset.error();
  EXPECT_EQ(onset->parameters()[0].size_from, size_rule::onset) << "the default";
  auto fitted = catalog::parse(text + "size_from = \"miss_fit\"\n", "mine.toml");
  ASSERT_TRUE(fitted.has_value()) << fitted.error();
  EXPECT_EQ(fitted->parameters()[0].size_from, size_rule::miss_fit);
  auto unknown = catalog::parse(text + "size_from = \"largest_step\"\n", "mine.toml");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().find("size_from"), std::string::npos) << unknown.error();
  EXPECT_NE(unknown.error().find("miss_fit"), std::string::npos) << unknown.error();
}

TEST(CalibrateCatalog, ASizeRuleOnAParameterThatIsNotASizeIsAProblem) {
  auto parsed = catalog::parse(std::string{one_entry} + "size_from = \"miss_fit\"\n", "mine.toml");
  ASSERT_TRUE(parsed.has_value()) << parsed.error();
  bool named = false;
  for (const auto& problem : self_check(*parsed))
    named = named || problem.find("size_from applies to cache sizes") != std::string::npos;
  EXPECT_TRUE(named);
  auto built = catalog::built_in();
  ASSERT_TRUE(built.has_value()) << built.error();
  EXPECT_EQ(built->find("l2_size")->size_from, size_rule::miss_fit) << "the walks' capacities are fitted";
  EXPECT_EQ(built->find("l1_size")->size_from, size_rule::miss_fit);
  EXPECT_EQ(built->find("l2_partition_size")->size_from, size_rule::onset) << "a ring's first step";
}

TEST(CalibrateCatalog, ARederiveWithoutItsDivisorOrWithAnUnknownKeyIsAnErrorWithItsPlace) {
  std::string text{one_entry};
  text += "rederive = { count = \"a.sum\", divisor = \"b.sum\" }\n";
  auto parsed = catalog::parse(text, "mine.toml");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_NE(parsed.error().find("mine.toml:11"), std::string::npos) << parsed.error();
  EXPECT_NE(parsed.error().find("divisor"), std::string::npos) << parsed.error();
  EXPECT_NE(parsed.error().find("'over'"), std::string::npos) << parsed.error();
}

TEST(CalibrateCatalog, EveryBandwidthAndThroughputOfTheBuiltInCatalogIsReDerivable) {
  auto built = catalog::built_in();
  ASSERT_TRUE(built.has_value()) << built.error();
  for (std::string_view name : {"fp32_fma_throughput", "fp64_fma_throughput", "fp16_hfma2_throughput",
                                "dram_bandwidth", "l2_bandwidth", "sm_clock_mhz"}) {
    const auto* p = built->find(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_TRUE(p->rederive) << name;
  }
  EXPECT_FALSE(built->find("l1_hit_latency")->method.empty()) << "a latency states its method";
}

TEST(CalibrateCatalog, ATomlSyntaxErrorNamesItsLine) {
  auto parsed = catalog::parse("[[parameter]]\nname = \n", "broken.toml");
  ASSERT_FALSE(parsed.has_value());
  EXPECT_NE(parsed.error().find("broken.toml:2"), std::string::npos) << parsed.error();
}

TEST(CalibrateCatalog, LoadingAMissingFileNamesIt) {
  auto loaded = catalog::load("/nonexistent/calibrate/catalog.toml");
  ASSERT_FALSE(loaded.has_value());
  EXPECT_NE(loaded.error().find("/nonexistent/calibrate/catalog.toml"), std::string::npos);
}

TEST(CalibrateCatalog, TheDataFileInTheTreeIsTheOneCompiledIn) {
  auto from_tree = catalog::load(std::string{WARPFORGE_SOURCE_DIR} + "/calibrate/data/catalog.toml");
  auto built = catalog::built_in();
  ASSERT_TRUE(from_tree.has_value()) << from_tree.error();
  ASSERT_TRUE(built.has_value()) << built.error();
  EXPECT_EQ(from_tree->parameters(), built->parameters());
}

} // namespace
} // namespace warpforge::calibrate
