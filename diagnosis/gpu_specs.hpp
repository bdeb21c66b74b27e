#pragma once
// Peak numbers of known GPUs (diagnosis/data/gpu_specs.toml) and what the device itself reports,
// combined into one gpu_profile for the roofline.
//
//   gpu_profile gpu = describe_gpu(builtin_gpu_table(), device);   // device: from the runner
//   if (auto bw = gpu.peak_dram_bandwidth()) ...                   // bytes/s
//
// A GPU is found by the exact name the CUDA runtime reports (case and surrounding blanks ignored),
// e.g. "NVIDIA H100 80GB HBM3" (SXM) vs "NVIDIA H100 PCIe". An unknown name gives match ==
// unknown and no table numbers: never another GPU's (KernelAgent's A100 fallback was judged wrong
// by its own reviewers; SEEDS-FACTS 4.2). Device-reported properties are used as they are; where
// the device reports its memory clock and bus width, the theoretical DRAM bandwidth
// 2 * memory_clock * bus_width / 8 (DDR: two transfers per clock) is computed and shown beside the
// table's figure. All figures are dense (no structured sparsity). Units: FLOP/s, bytes/s, bytes.

#include "foundation/expected/expected.hpp"
#include "config/toml_reader/placed_error.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::diagnosis {

/// The arithmetic a peak figure is for.
enum class precision : std::uint8_t {
  fp64,        // FP64 FMA pipe
  fp64_tensor, // FP64 on tensor cores (DMMA)
  fp32,        // FP32 FMA pipe
  fp16,        // FP16 on the FMA pipes (non-tensor)
  tf32_tensor, // TF32 on tensor cores
  fp16_tensor, // FP16 on tensor cores (FP32 accumulate where it differs)
  bf16_tensor, // BF16 on tensor cores
  fp8_tensor,  // FP8 on tensor cores
};
inline constexpr std::array all_precisions{
  precision::fp64,        precision::fp64_tensor, precision::fp32,        precision::fp16,
  precision::tf32_tensor, precision::fp16_tensor, precision::bf16_tensor, precision::fp8_tensor};
std::string_view to_string(precision p);
std::optional<precision> precision_from_string(std::string_view text);

/// One row of the table.
struct gpu_spec {
  std::string key;                       // stable id: "h100_sxm"
  std::string label;                     // "NVIDIA H100 SXM5 80GB"
  std::vector<std::string> device_names; // names the CUDA runtime reports for this GPU
  std::string arch;                      // "sm_90"
  int sm_count = 0;                      // streaming multiprocessors
  std::array<std::optional<double>, all_precisions.size()> peak_flops{}; // FLOP/s by precision
                                         // (index: static_cast<size_t>(precision)); nullopt: the
                                         // GPU has no such unit, or the table does not know
  double dram_bandwidth = 0.0;           // bytes/s, as published
  std::optional<double> l2_bytes;        // bytes
  std::string source;                    // where the numbers come from
  std::uint32_t line = 0;                // line of the entry in its file

  std::optional<double> peak(precision p) const { return peak_flops[static_cast<std::size_t>(p)]; }
};

class gpu_table {
public:
  const std::vector<gpu_spec>& entries() const { return entries_; }
  /// The row whose device_names include `device_name` (case and surrounding blanks ignored);
  /// nullptr for any other name. No partial or fuzzy matching.
  const gpu_spec* find(std::string_view device_name) const;

private:
  friend expected<gpu_table, toml_reader::placed_errors> parse_gpu_table(std::string_view text,
                                                                         const std::string& file);
  std::vector<gpu_spec> entries_;
};

expected<gpu_table, toml_reader::placed_errors> parse_gpu_table(std::string_view text,
                                                                const std::string& file);
expected<gpu_table, toml_reader::placed_errors> load_gpu_table(const std::filesystem::path& path);
/// diagnosis/data/gpu_specs.toml as compiled in; throws std::logic_error if it does not load.
const gpu_table& builtin_gpu_table();

/// What the device reports about itself (gpu::device_info carries these; 0 = not reported).
struct device_properties {
  std::string name;                    // e.g. "NVIDIA H100 80GB HBM3"
  int sm_count = 0;                    // SMs
  std::uint64_t sm_clock_khz = 0;      // peak SM clock, kHz
  std::uint64_t memory_clock_khz = 0;  // peak memory clock, kHz
  int memory_bus_width_bits = 0;       // global memory bus width, bits
  std::uint64_t l2_bytes = 0;          // L2 cache, bytes
};

enum class gpu_match : std::uint8_t {
  table,   // the name is in the table: its figures are used
  unknown, // not in the table: no table figures (only what the device reports)
};
inline constexpr std::array all_gpu_matches{gpu_match::table, gpu_match::unknown};
std::string_view to_string(gpu_match match);
std::optional<gpu_match> gpu_match_from_string(std::string_view text);

/// One GPU as diagnosis sees it: the table row (if any) and the device's own report.
struct gpu_profile {
  std::string name;                                // as reported / asked for
  gpu_match match = gpu_match::unknown;
  std::optional<gpu_spec> spec;                    // the table row when match == table
  device_properties device;                        // as reported (zeros when not)
  std::optional<double> dram_bandwidth_table;      // bytes/s, the table's figure
  std::optional<double> dram_bandwidth_theoretical; // bytes/s, 2 * memory clock * bus width / 8
  std::vector<std::string> notes;                  // disagreements and gaps, for people

  /// The DRAM bandwidth the roofline uses: the table's published figure, else the theoretical
  /// figure computed from the device's clock and bus width, else none.
  std::optional<double> peak_dram_bandwidth() const;
  /// The table's peak for `p` (FLOP/s); none for an unknown GPU.
  std::optional<double> peak_flops(precision p) const;
  /// The device's SM count when reported, else the table's, else 0.
  int sm_count() const;
};

/// The profile of the GPU named `device.name`, combining the table row (exact name match) with
/// what the device reports. Notes say when the two disagree (SM count differs: MIG slice or another
/// SKU; table and theoretical bandwidth more than 10% apart) or when the name is unknown.
gpu_profile describe_gpu(const gpu_table& table, const device_properties& device);

/// 2 * memory_clock * bus_width / 8 in bytes/s; none unless both are reported (non-zero).
std::optional<double> theoretical_dram_bandwidth(const device_properties& device);

/// A few lines for people: name, match, SMs, each known peak, and both DRAM figures side by side.
std::string to_text(const gpu_profile& gpu);

} // namespace warpforge::diagnosis
