#include "diagnosis/gpu_specs.hpp"

#include "metric_sets.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace warpforge::diagnosis;
using warpforge::diagnosis::testing::h100_sxm_device;

TEST(gpu_specs, every_precision_and_match_round_trips_through_its_name) {
  for (auto p : all_precisions)
    EXPECT_EQ(precision_from_string(to_string(p)), p);
  for (auto m : all_gpu_matches)
    EXPECT_EQ(gpu_match_from_string(to_string(m)), m);
  EXPECT_FALSE(precision_from_string("fp4"));
  EXPECT_FALSE(gpu_match_from_string("fuzzy"));
}

TEST(gpu_specs, the_builtin_table_loads_and_names_a_source_for_every_gpu) {
  const gpu_table& table = builtin_gpu_table();
  std::set<std::string> keys;
  for (const auto& gpu : table.entries()) {
    EXPECT_TRUE(keys.insert(gpu.key).second) << gpu.key;
    EXPECT_FALSE(gpu.source.empty()) << gpu.key;
    EXPECT_GT(gpu.sm_count, 0) << gpu.key;
    EXPECT_TRUE(gpu.peak(precision::fp32)) << gpu.key;
  }
  for (const auto key : {"h100_sxm", "h100_pcie", "h200_sxm", "a100_sxm4_40gb", "a100_sxm4_80gb",
                         "l40s", "rtx_4090", "b200"})
    EXPECT_TRUE(keys.contains(key)) << key;
}

TEST(gpu_specs, h100_sxm_and_pcie_are_told_apart_by_the_exact_device_name) {
  const gpu_table& table = builtin_gpu_table();
  const gpu_spec* sxm = table.find("NVIDIA H100 80GB HBM3");
  const gpu_spec* pcie = table.find("NVIDIA H100 PCIe");
  ASSERT_NE(sxm, nullptr);
  ASSERT_NE(pcie, nullptr);
  EXPECT_EQ(sxm->key, "h100_sxm");
  EXPECT_EQ(pcie->key, "h100_pcie");
  EXPECT_EQ(sxm->sm_count, 132);
  EXPECT_EQ(pcie->sm_count, 114);
  EXPECT_DOUBLE_EQ(sxm->dram_bandwidth, 3350e9);
  EXPECT_DOUBLE_EQ(*sxm->peak(precision::fp32), 67e12);
  EXPECT_DOUBLE_EQ(*sxm->peak(precision::bf16_tensor), 989.5e12);
  EXPECT_DOUBLE_EQ(*sxm->peak(precision::fp8_tensor), 1979e12);
  EXPECT_DOUBLE_EQ(*sxm->l2_bytes, 50.0 * 1024 * 1024);
  EXPECT_EQ(table.find("  nvidia h100 80gb hbm3 "), sxm); // case and surrounding blanks ignored
  EXPECT_EQ(table.find("NVIDIA A100-SXM4-80GB")->key, "a100_sxm4_80gb");
  EXPECT_FALSE(
      table.find("NVIDIA A100-SXM4-80GB")->peak(precision::fp8_tensor)); // no FP8 on Ampere
}

TEST(gpu_specs, an_unknown_or_partial_name_gets_no_numbers_from_another_gpu) {
  const gpu_table& table = builtin_gpu_table();
  EXPECT_EQ(table.find("NVIDIA H100"), nullptr); // no fuzzy match
  EXPECT_EQ(table.find("H100"), nullptr);
  EXPECT_EQ(table.find("NVIDIA GeForce RTX 3090"), nullptr);
  EXPECT_EQ(table.find(""), nullptr);

  const gpu_profile gpu = describe_gpu(table, {"NVIDIA GeForce RTX 3090", 82, 0, 0, 0, 0});
  EXPECT_EQ(gpu.match, gpu_match::unknown);
  EXPECT_FALSE(gpu.spec);
  for (auto p : all_precisions)
    EXPECT_FALSE(gpu.peak_flops(p)) << to_string(p);
  EXPECT_FALSE(gpu.peak_dram_bandwidth());
  EXPECT_EQ(gpu.sm_count(), 82);
  ASSERT_EQ(gpu.notes.size(), 1u);
  EXPECT_NE(gpu.notes[0].find("not in the GPU table"), std::string::npos);
}

TEST(gpu_specs, theoretical_dram_bandwidth_is_two_transfers_per_memory_clock_over_the_bus) {
  // H100 SXM: 2 x 2619 MHz x 5120 bit / 8 = 2 x 2.619e9 x 640 B = 3,352,320,000,000 B/s.
  EXPECT_DOUBLE_EQ(*theoretical_dram_bandwidth(h100_sxm_device()), 3352.32e9);
  // RTX 4090 (GDDR6X): 2 x 10501 MHz x 384 bit / 8 = 2 x 10.501e9 x 48 B = 1008.096 GB/s.
  EXPECT_DOUBLE_EQ(
      *theoretical_dram_bandwidth({"NVIDIA GeForce RTX 4090", 128, 0, 10501000, 384, 0}),
      1008.096e9);
  EXPECT_FALSE(theoretical_dram_bandwidth({"x", 1, 0, 0, 5120, 0}));
  EXPECT_FALSE(theoretical_dram_bandwidth({"x", 1, 0, 2619000, 0, 0}));
}

TEST(gpu_specs, a_known_gpu_combines_the_table_with_the_device_report) {
  const gpu_profile gpu = describe_gpu(builtin_gpu_table(), h100_sxm_device());
  EXPECT_EQ(gpu.match, gpu_match::table);
  EXPECT_DOUBLE_EQ(*gpu.dram_bandwidth_table, 3350e9);
  EXPECT_DOUBLE_EQ(*gpu.dram_bandwidth_theoretical, 3352.32e9);
  EXPECT_DOUBLE_EQ(*gpu.peak_dram_bandwidth(), 3350e9); // the published figure is used
  EXPECT_EQ(gpu.sm_count(), 132);
  EXPECT_TRUE(gpu.notes.empty()) << gpu.notes[0];
  const std::string text = to_text(gpu);
  EXPECT_NE(text.find("table 3350 GB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("theoretical (2 x memory clock x bus width / 8) 3352 GB/s"),
            std::string::npos)
      << text;
}

TEST(gpu_specs, disagreements_between_table_and_device_are_noted) {
  auto device = h100_sxm_device();
  device.sm_count = 16;              // a MIG slice
  device.memory_clock_khz = 1593000; // HBM2e-like clock: 2 x 1.593e9 x 640 = 2039 GB/s
  const gpu_profile gpu = describe_gpu(builtin_gpu_table(), device);
  ASSERT_EQ(gpu.notes.size(), 2u);
  EXPECT_NE(gpu.notes[0].find("16 SMs"), std::string::npos) << gpu.notes[0];
  EXPECT_NE(gpu.notes[1].find("2039 GB/s"), std::string::npos) << gpu.notes[1];
  EXPECT_EQ(gpu.sm_count(), 16);
}

TEST(gpu_specs, an_unknown_gpu_with_clock_and_bus_uses_the_theoretical_bandwidth) {
  const gpu_profile gpu =
      describe_gpu(builtin_gpu_table(), {"NVIDIA Future GPU", 200, 0, 4000000, 8192, 0});
  EXPECT_EQ(gpu.match, gpu_match::unknown);
  EXPECT_DOUBLE_EQ(*gpu.peak_dram_bandwidth(), 2.0 * 4e9 * 1024);
  EXPECT_NE(to_text(gpu).find("table n/a"), std::string::npos);
}

TEST(gpu_specs, table_errors_name_line_and_key) {
  const auto parsed = parse_gpu_table(R"([[gpu]]
key = "a"
label = "A"
names = ["NVIDIA A"]
arch = "sm_80"
sm_count = 10
fp32_tflops = 1.0
dram_gbps = 100.0
source = "test"

[[gpu]]
key = "b"
label = "B"
names = ["nvidia a"]
arch = "sm_80"
sm_count = 0
dram_gbps = 100.0
fp16_tflops = -1.0
source = "test"
)",
                                      "gpus.toml");
  ASSERT_FALSE(parsed);
  const auto& errors = parsed.error();
  auto has = [&](std::string_view key, std::uint32_t line, std::string_view part) {
    for (const auto& e : errors)
      if (e.key == key && e.line == line && e.message.find(part) != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(has("gpu.b.names", 14, "already belongs to 'a'")) << to_string(errors);
  EXPECT_TRUE(has("gpu.b.sm_count", 16, "positive")) << to_string(errors);
  EXPECT_TRUE(has("gpu[1].fp32_tflops", 11, "missing")) << to_string(errors);
  EXPECT_TRUE(has("gpu.b.fp16_tflops", 18, "positive")) << to_string(errors);
}
