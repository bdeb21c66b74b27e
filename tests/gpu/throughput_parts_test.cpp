// sm__throughput as the runner reads it, from some of its parts (gpu/runtime/throughput_parts.hpp):
// the plan, the composition, and the parts against ncu's own breakdown of nine H100 kernels
// (tests/gpu/fixtures/ncu_breakdown_h100.csv, captured).

#include "gpu/runtime/throughput_parts.hpp"
#include "gpu/runner/ncu_profile.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace warpforge::gpu {
namespace {

namespace fs = std::filesystem;

const std::string sm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
const std::string memory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
const std::string l1 = "l1tex__throughput.avg.pct_of_peak_sustained_active";
const std::string l2 = "lts__throughput.avg.pct_of_peak_sustained_active";
const std::string dram = "dram__bytes_read.sum";

const std::vector<std::string>& parts_of(const std::string& composite) {
  for (const auto& t : composed_throughputs())
    if (t.composite == composite)
      return t.parts;
  throw std::logic_error("no parts for " + composite);
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(throughput_parts, sm_throughput_alone_is_read_from_parts_and_no_part_is_a_composite) {
  ASSERT_EQ(composed_throughputs().size(), 1u);
  EXPECT_EQ(composed_throughputs().front().composite, sm);
  const auto& parts = parts_of(sm);
  EXPECT_GE(parts.size(), 3u);
  for (const auto& part : parts)
    for (const auto& whole : {sm, memory, l1, l2})
      EXPECT_NE(part, whole);
}

TEST(throughput_parts, on_a_checked_chip_sm_throughput_gives_way_to_its_parts_in_the_request_order) {
  auto plan = plan_counters({dram, sm, l2}, "GH100");
  EXPECT_EQ(plan.composed, (std::vector<std::string>{sm}));
  EXPECT_EQ(plan.counters.front(), dram);
  EXPECT_FALSE(contains(plan.counters, sm));
  EXPECT_EQ(plan.counters.back(), l2) << "the other composites are asked for whole";
  for (const auto& part : parts_of(sm))
    EXPECT_TRUE(contains(plan.counters, part)) << part;
  EXPECT_EQ(plan.counters.size(), 2 + parts_of(sm).size());
}

TEST(throughput_parts, a_part_asked_for_itself_is_collected_once) {
  const auto part = parts_of(sm).front();
  auto plan = plan_counters({part, sm}, "GH100");
  EXPECT_EQ(std::count(plan.counters.begin(), plan.counters.end(), part), 1);
  EXPECT_EQ(plan.counters.size(), parts_of(sm).size());
}

TEST(throughput_parts, on_a_chip_whose_breakdowns_were_not_read_the_composites_are_asked_whole) {
  auto plan = plan_counters({dram, sm, memory}, "GA100");
  EXPECT_TRUE(plan.composed.empty());
  EXPECT_EQ(plan.counters, (std::vector<std::string>{dram, sm, memory}));
  EXPECT_EQ(composed_remark(plan), "");
}

TEST(throughput_parts, a_composite_is_its_busiest_part_and_the_parts_not_asked_for_are_dropped) {
  const auto& parts = parts_of(sm);
  const auto kept_part = parts.back();
  auto plan = plan_counters({sm, kept_part, dram}, "GH100");
  std::map<std::string, double> values{{dram, 1e6}};
  for (std::size_t i = 0; i < parts.size(); ++i)
    values[parts[i]] = 10.0 + static_cast<double>(i % 3); // 10, 11, 12, 10, ...
  values[parts[2]] = 71.5;
  std::map<std::string, std::string> missing;
  compose_throughputs(plan, values, missing);
  EXPECT_DOUBLE_EQ(values.at(sm), 71.5);
  EXPECT_TRUE(values.contains(kept_part)); // asked for itself
  EXPECT_DOUBLE_EQ(values.at(dram), 1e6);
  EXPECT_EQ(values.size(), 3u) << "only the three names asked for remain";
  EXPECT_TRUE(missing.empty());
  EXPECT_NE(composed_remark(plan).find("sm__throughput read as the busiest of"), std::string::npos);
}

TEST(throughput_parts, a_composite_with_a_part_missing_has_no_value_and_names_the_part) {
  const auto& parts = parts_of(sm);
  auto plan = plan_counters({sm}, "GH100");
  std::map<std::string, double> values;
  for (std::size_t i = 1; i < parts.size(); ++i)
    values[parts[i]] = 90.0;
  std::map<std::string, std::string> missing{{parts[0], "not a metric of chip GH100"}};
  compose_throughputs(plan, values, missing);
  EXPECT_FALSE(values.contains(sm)) << "the busiest of the parts read could be the wrong one";
  ASSERT_TRUE(missing.contains(sm));
  EXPECT_NE(missing.at(sm).find(parts[0]), std::string::npos);
  EXPECT_NE(missing.at(sm).find("not a metric of chip GH100"), std::string::npos) << "the part's reason goes with it";
  EXPECT_TRUE(values.empty());
  EXPECT_EQ(missing.size(), 1u) << "the part's own entry is folded into the composite's";
}

TEST(throughput_parts, a_composite_none_of_whose_parts_was_read_says_so_briefly) {
  auto plan = plan_counters({sm, dram}, "GH100");
  std::map<std::string, double> values{{dram, 3.0}};
  std::map<std::string, std::string> missing;
  compose_throughputs(plan, values, missing);
  EXPECT_EQ(missing.at(sm), "read from its parts, none of which has a value");
  EXPECT_EQ(values.size(), 1u);
}

TEST(throughput_parts, a_reason_given_before_the_composition_stays) {
  auto plan = plan_counters({sm}, "GH100");
  std::map<std::string, double> values;
  std::map<std::string, std::string> missing{{sm, "range profiler: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"}};
  compose_throughputs(plan, values, missing);
  EXPECT_EQ(missing.at(sm), "range profiler: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
}

// ncu's breakdown of nine kernels, each bound by another unit (throughput_kernels.cu): the
// busiest of the parts kept is ncu's own sm__throughput, to the digits ncu prints.
TEST(throughput_parts, the_parts_give_ncus_value_on_nine_h100_kernels_bound_by_different_units) {
  std::ifstream file{fs::path{WARPFORGE_SOURCE_DIR} / "tests/gpu/fixtures/ncu_breakdown_h100.csv"};
  std::stringstream text;
  text << file.rdbuf();
  auto csv = parse_ncu_csv(text.str());
  ASSERT_TRUE(csv) << csv.error().message;
  ASSERT_EQ(csv->launches.size(), 9u);
  std::set<std::string> bound_by; // the parts that were the busiest, over the kernels
  for (const auto& launch : csv->launches) {
    const auto& kernel = launch.text.at("Kernel Name");
    auto plan = plan_counters({sm}, "GH100");
    std::map<std::string, double> values;
    for (const auto& name : plan.counters)
      if (launch.values.contains(name))
        values[name] = launch.values.at(name);
    std::map<std::string, std::string> missing;
    compose_throughputs(plan, values, missing);
    ASSERT_TRUE(missing.empty()) << kernel << ": " << missing.begin()->second;
    EXPECT_NEAR(values.at(sm), launch.values.at(sm), 0.005) << kernel;
    for (const auto& part : parts_of(sm))
      if (launch.values.at(part) == launch.values.at(sm))
        bound_by.insert(part);
  }
  // Not one part doing all the work: the nine kernels are bound by at least five different parts.
  EXPECT_GE(bound_by.size(), 5u);
}

} // namespace
} // namespace warpforge::gpu
