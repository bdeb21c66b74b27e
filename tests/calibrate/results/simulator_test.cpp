#include "calibrate/results/simulator.hpp"

#include "calibrate/catalog.hpp"
#include "sample_results.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

using namespace warpforge::calibrate;
using warpforge::calibrate::testing::h100_results;
using warpforge::calibrate::testing::passing;

namespace {

// An expected fragment, checked by hand against the inputs of h100_results():
// -gpgpu_l2_rop_latency 262.2 - 33.4 = 228.8 -> 229; -dram_latency 661 - 262.2 = 398.8 -> 399;
// sp interval 128 / 127.6 -> 1; dp 128 / 63.8 -> 2; sfu 128 / 16 = 8; tensor 16384 / 2048 = 8
// (trace) and 32768 / 2048 = 16 (PTX); threads per SM 64 x 32 = 2048.
std::string expected_fragment(const std::string& file) {
  std::ifstream in{std::string{WARPFORGE_SOURCE_DIR} + "/tests/calibrate/results/data/" + file};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The line of `fragment` that starts with `prefix`, or "".
std::string line_of(const std::string& fragment, const std::string& prefix) {
  std::istringstream lines{fragment};
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0)
      return line;
  return {};
}

} // namespace

TEST(simulator, the_built_in_mapping_parses) {
  auto mapping = built_in_simulator_mapping();
  ASSERT_TRUE(mapping) << mapping.error();
  EXPECT_GT(mapping->keys.size(), 20u);
}

TEST(simulator, every_parameter_the_mapping_reads_is_in_the_built_in_catalog) {
  auto mapping = built_in_simulator_mapping();
  auto cat = catalog::built_in();
  ASSERT_TRUE(mapping) << mapping.error();
  ASSERT_TRUE(cat) << cat.error();
  for (const auto& key : mapping->keys)
    for (const auto& part : key.parts)
      for (const auto& name : part.from)
        EXPECT_NE(cat->find(name), nullptr) << key.key << " reads unknown parameter " << name;
}

TEST(simulator, the_accel_sim_fragment_matches_the_expected_one) {
  EXPECT_EQ(accel_sim_config(h100_results()), expected_fragment("expected_accel_sim.cfg"));
}

TEST(simulator, the_gpgpu_sim_fragment_matches_the_expected_one) {
  EXPECT_EQ(gpgpu_sim_config(h100_results()), expected_fragment("expected_gpgpu_sim.cfg"));
}

TEST(simulator, accel_sim_gets_trace_keys_and_gpgpu_sim_gets_ptx_keys) {
  const auto accel = accel_sim_config(h100_results());
  const auto gpgpu = gpgpu_sim_config(h100_results());
  EXPECT_EQ(line_of(accel, "-trace_opcode_latency_initiation_sp"), "-trace_opcode_latency_initiation_sp 4,1");
  EXPECT_EQ(line_of(accel, "-ptx_opcode_latency_fp"), "");
  EXPECT_EQ(line_of(gpgpu, "-ptx_opcode_latency_fp"), "-ptx_opcode_latency_fp 4,4,4,4,39");
  EXPECT_EQ(line_of(gpgpu, "-trace_opcode"), "");
  EXPECT_EQ(line_of(accel, "-gpgpu_l2_rop_latency"), line_of(gpgpu, "-gpgpu_l2_rop_latency"));
}

TEST(simulator, a_parameter_that_did_not_pass_is_not_written_and_the_comment_says_why) {
  auto results = h100_results();
  for (auto& r : results)
    if (r.name == "l1_hit_latency")
      r.result = status::high_variance;
  const auto accel = accel_sim_config(results);
  EXPECT_EQ(line_of(accel, "-gpgpu_l1_latency"), "");
  EXPECT_EQ(line_of(accel, "-gpgpu_l2_rop_latency"), ""); // reads the L1 latency too
  EXPECT_EQ(line_of(accel, "# -gpgpu_l1_latency 33"), ""); // the value is not shown as if usable
  EXPECT_NE(line_of(accel, "# -gpgpu_l1_latency ?").find("l1_hit_latency is HIGH_VARIANCE"),
            std::string::npos);
  EXPECT_EQ(line_of(accel, "-dram_latency"), "-dram_latency 399"); // unaffected
}

TEST(simulator, a_pass_with_note_is_written) {
  auto results = h100_results();
  results.front().result = status::pass_with_note; // sm_count
  EXPECT_EQ(line_of(accel_sim_config(results), "-gpgpu_n_clusters"), "-gpgpu_n_clusters 132");
}

TEST(simulator, a_missing_parameter_is_named_as_not_measured) {
  const auto accel = accel_sim_config({passing("sm_count", "SMs", 114)});
  EXPECT_EQ(line_of(accel, "-gpgpu_n_clusters"), "-gpgpu_n_clusters 114");
  EXPECT_NE(line_of(accel, "# -gpgpu_l1_latency ?").find("l1_hit_latency was not measured"),
            std::string::npos);
}

TEST(simulator, a_parameter_tried_but_not_measured_shows_no_number_in_the_comment) {
  auto results = h100_results();
  for (auto& r : results)
    if (r.name == "l1_hit_latency") {
      r.result = status::no_data;
      r.value.reset();
      r.stats = {};
      r.notes = {"built and SASS-checked; not run: no GPU"};
    }
  const auto accel = accel_sim_config(results);
  const auto line = line_of(accel, "# -gpgpu_l1_latency ?");
  EXPECT_NE(line.find("l1_hit_latency is NO_DATA"), std::string::npos) << line;
  EXPECT_NE(accel.find("l1_hit_latency not measured (NO_DATA)"), std::string::npos) << accel;
  EXPECT_EQ(accel.find("l1_hit_latency 0 "), std::string::npos) << accel;
}

TEST(simulator, a_placeholder_leaves_the_key_for_the_user) {
  const auto line = line_of(accel_sim_config(h100_results()), "# -gpgpu_clock_domains 1755:");
  EXPECT_EQ(line.rfind("# -gpgpu_clock_domains 1755:1755:1755:<DRAM clock, MHz>", 0), 0u) << line;
  EXPECT_NE(line.find("fill in"), std::string::npos);
}

TEST(simulator, a_mapping_of_its_own_follows_its_formulas) {
  auto mapping = parse_simulator_mapping(R"(
[[key]]
simulators = ["accel_sim"]
file = "gpgpusim.config"
key = "-gpgpu_shmem_size"
note = "KiB to bytes"
parts = [ { formula = "value", from = ["smem_kib"], scale = 1024 } ]

[[key]]
simulators = ["gpgpu_sim"]
file = "gpgpusim.config"
key = "-only_gpgpu"
parts = [ { formula = "value", from = ["smem_kib"] } ]

[[key]]
simulators = ["accel_sim"]
file = "gpgpusim.config"
key = "-ratio"
separator = ":"
parts = [ { formula = "initiation_interval", from = ["rate"], work = 100, integer = false },
          { formula = "product", from = ["rate", "smem_kib"] } ]
)", "own.toml");
  ASSERT_TRUE(mapping) << mapping.error();
  const std::vector results{passing("smem_kib", "KiB", 228), passing("rate", "ops/clk/SM", 40)};
  const auto text = simulator_config(simulator::accel_sim, results, *mapping);
  EXPECT_EQ(line_of(text, "-gpgpu_shmem_size"), "-gpgpu_shmem_size 233472");
  EXPECT_EQ(line_of(text, "-ratio"), "-ratio 2.5:9120");
  EXPECT_EQ(line_of(text, "-only_gpgpu"), "");
}

TEST(simulator, a_broken_mapping_is_an_error_naming_the_place) {
  auto unknown = parse_simulator_mapping(R"([[key]]
simulators = ["accel_sim"]
file = "gpgpusim.config"
key = "-x"
parts = [ { formula = "ratio", from = ["a"] } ]
)", "bad.toml");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find("bad.toml:5"), std::string::npos) << unknown.error();
  EXPECT_NE(unknown.error().find("ratio"), std::string::npos);

  auto arity = parse_simulator_mapping(R"([[key]]
simulators = ["accel_sim"]
file = "gpgpusim.config"
key = "-x"
parts = [ { formula = "difference", from = ["a"] } ]
)", "bad.toml");
  ASSERT_FALSE(arity);
  EXPECT_NE(arity.error().find("difference reads 2"), std::string::npos) << arity.error();

  auto unsourced = parse_simulator_mapping(R"([[key]]
simulators = ["gpgpu_sim", "gem5"]
file = "gpgpusim.config"
key = "x"
parts = [ { formula = "literal", text = "39" } ]
)", "bad.toml");
  ASSERT_FALSE(unsourced);
  EXPECT_NE(unsourced.error().find("a literal needs its source"), std::string::npos) << unsourced.error();
  EXPECT_NE(unsourced.error().find("unknown simulator 'gem5'"), std::string::npos);
  EXPECT_NE(unsourced.error().find("starts with '-'"), std::string::npos);
}

TEST(simulator, names_read_back) {
  for (simulator s : {simulator::accel_sim, simulator::gpgpu_sim})
    EXPECT_EQ(simulator_from_string(to_string(s)), s);
  for (part_formula f : {part_formula::value, part_formula::difference, part_formula::product,
                         part_formula::initiation_interval, part_formula::literal,
                         part_formula::placeholder})
    EXPECT_EQ(part_formula_from_string(to_string(f)), f);
  EXPECT_EQ(simulator_from_string("gem5"), std::nullopt);
}
