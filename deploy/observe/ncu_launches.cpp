#include "deploy/observe/ncu_launches.hpp"

#include "gpu/runner/ncu_profile.hpp"

#include <cxxabi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>

namespace warpforge::observe {
namespace {

constexpr std::string_view id_column = "ID";
constexpr std::string_view kernel_column = "Kernel Name";
constexpr std::string_view device_column = "Device";
constexpr std::string_view grid_column = "Grid Size";   // "(256, 1, 1)": when the metrics are absent
constexpr std::string_view block_column = "Block Size";
constexpr std::string_view metric_name_column = "Metric Name"; // details page only
constexpr std::string_view metric_unit_column = "Metric Unit";
constexpr std::string_view metric_value_column = "Metric Value";

std::string escape_regex(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view{".^$|()[]{}*+?\\"}.find(c) != std::string_view::npos)
      out += '\\';
    out += c;
  }
  return out;
}

std::string demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text{abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status),
                                                   &std::free};
  return status == 0 && text ? std::string{text.get()} : symbol;
}

// Seconds per unit of a time as ncu prints its unit.
std::optional<double> seconds_per(std::string_view unit) {
  static const std::map<std::string_view, double> scale{
    {"ns", 1e-9}, {"nsecond", 1e-9}, {"us", 1e-6}, {"usecond", 1e-6},
    {"ms", 1e-3}, {"msecond", 1e-3}, {"s", 1.0},   {"second", 1.0}};
  auto it = scale.find(unit);
  return it == scale.end() ? std::nullopt : std::optional{it->second};
}

// Bytes per unit of a size as ncu prints it: "byte/block" for shared memory per block (ncu 2025.3),
// "byte"; "" counts as bytes.
std::optional<double> bytes_per(std::string_view unit) {
  if (unit.ends_with("/block"))
    unit.remove_suffix(std::string_view{"/block"}.size());
  static const std::map<std::string_view, double> scale{
    {"", 1.0}, {"byte", 1.0}, {"Kbyte", 1e3}, {"Mbyte", 1e6}, {"KB", 1e3}, {"MB", 1e6}};
  auto it = scale.find(unit);
  return it == scale.end() ? std::nullopt : std::optional{it->second};
}

// One launch's metric values and units, whichever page they came from.
struct launch_columns {
  std::map<std::string, double> values;
  std::map<std::string, std::string> text;
  std::map<std::string, std::string> units; // metric → unit
};

// "(256, 8, 1)" → {256, 8, 1}.
std::optional<std::array<std::uint32_t, 3>> parse_dim3(std::string_view text) {
  std::array<std::uint32_t, 3> out{1, 1, 1};
  unsigned x = 0, y = 0, z = 0;
  if (std::sscanf(std::string{text}.c_str(), "(%u, %u, %u)", &x, &y, &z) != 3)
    return std::nullopt;
  out = {x, y, z};
  return out;
}

// The launch's dim3 from its three metrics, else from the identity column.
expected<std::array<std::uint32_t, 3>, std::string> dim3_of(const launch_columns& c, std::string_view prefix,
                                                            std::string_view fallback_column) {
  std::array<std::uint32_t, 3> out{1, 1, 1};
  const char* axes[] = {"x", "y", "z"};
  bool all = true;
  for (int i = 0; i < 3; ++i) {
    auto it = c.values.find(std::string{prefix} + axes[i]);
    if (it == c.values.end() || it->second < 0) {
      all = false;
      break;
    }
    out[i] = static_cast<std::uint32_t>(it->second);
  }
  if (all)
    return out;
  if (auto text = c.text.find(std::string{fallback_column}); text != c.text.end())
    if (auto parsed = parse_dim3(text->second))
      return *parsed;
  return unexpected("no " + std::string{prefix} + "{x,y,z} metrics and no usable \"" +
                    std::string{fallback_column} + "\" column");
}

expected<launch_record, std::string> to_launch(const launch_columns& c) {
  launch_record launch;
  auto id = c.values.find(std::string{id_column});
  auto kernel = c.text.find(std::string{kernel_column});
  if (id == c.values.end() || kernel == c.text.end())
    return unexpected(std::string{"a row without \"ID\" or \"Kernel Name\""});
  const std::string where = "launch ID " + std::to_string(static_cast<long long>(id->second));
  launch.sequence = static_cast<std::uint64_t>(id->second);
  launch.kernel = kernel->second;
  launch.demangled = demangle(launch.kernel);
  if (auto device = c.values.find(std::string{device_column}); device != c.values.end())
    launch.device = static_cast<std::uint32_t>(device->second);
  auto grid = dim3_of(c, "launch__grid_dim_", grid_column);
  auto block = dim3_of(c, "launch__block_dim_", block_column);
  if (!grid || !block)
    return unexpected(where + ": " + (grid ? block.error() : grid.error()));
  launch.grid = *grid;
  launch.block = *block;
  const std::string duration{ncu_duration_metric}, smem{"launch__shared_mem_per_block_dynamic"};
  auto time = c.values.find(duration);
  auto unit = c.units.count(duration) ? c.units.at(duration) : std::string{"ns"};
  auto scale = seconds_per(unit);
  if (time == c.values.end() || !scale)
    return unexpected(where + ": " + duration + (time == c.values.end() ? " has no value" : " in unknown unit '" + unit + "'"));
  launch.duration_s = time->second * *scale;
  if (auto bytes = c.values.find(smem); bytes != c.values.end()) {
    auto smem_unit = c.units.count(smem) ? c.units.at(smem) : std::string{};
    auto per = bytes_per(smem_unit);
    if (!per)
      return unexpected(where + ": " + smem + " in unknown unit '" + smem_unit + "'");
    launch.dynamic_smem = static_cast<std::uint32_t>(std::llround(bytes->second * *per));
  }
  return launch;
}

// Raw page: every row is a launch, units from the units row.
std::vector<launch_columns> raw_page(const gpu::ncu_csv& table) {
  std::vector<launch_columns> out;
  for (const auto& row : table.launches)
    out.push_back({row.values, row.text, table.units});
  return out;
}

// Details page: rows of one launch share its ID; each row adds one metric.
std::vector<launch_columns> details_page(const gpu::ncu_csv& table) {
  std::vector<launch_columns> out;
  std::map<double, std::size_t> by_id;
  for (const auto& row : table.launches) {
    auto id = row.values.find(std::string{id_column});
    if (id == row.values.end())
      continue;
    auto [it, inserted] = by_id.try_emplace(id->second, out.size());
    if (inserted)
      out.push_back({row.values, row.text, {}});
    auto& launch = out[it->second];
    auto name = row.text.find(std::string{metric_name_column});
    auto value = row.values.find(std::string{metric_value_column});
    if (name == row.text.end() || value == row.values.end())
      continue; // "n/a": the metric has no value for this launch
    launch.values[name->second] = value->second;
    if (auto unit = row.text.find(std::string{metric_unit_column}); unit != row.text.end())
      launch.units[name->second] = unit->second;
  }
  return out;
}

} // namespace

std::vector<std::string> ncu_observe_arguments(std::string_view kernel, const std::filesystem::path& csv_file,
                                               const std::vector<std::string>& command) {
  std::string metrics;
  for (auto metric : ncu_observe_metrics)
    metrics += (metrics.empty() ? "" : ",") + std::string{metric};
  std::vector<std::string> args{"--csv", "--page", "raw", "--print-units", "base", "--clock-control", "none",
                                "--cache-control", "none", "--target-processes", "all",
                                "--print-kernel-base", "mangled", "--metrics", metrics};
  if (kernel.starts_with("_Z"))
    args.insert(args.end(), {"--kernel-name-base", "mangled", "--kernel-name", std::string{kernel}});
  else if (!kernel.empty()) // a substring of the demangled name; run_observed keeps the exact matches
    args.insert(args.end(), {"--kernel-name-base", "demangled", "--kernel-name", "regex:" + escape_regex(kernel)});
  args.insert(args.end(), {"--log-file", csv_file.string()});
  args.insert(args.end(), command.begin(), command.end());
  return args;
}

expected<std::vector<launch_record>, std::string> ncu_csv_launches(std::string_view csv_text) {
  auto table = gpu::parse_ncu_csv(csv_text);
  if (!table) {
    // ncu writes no table at all when nothing was profiled.
    if (table.error().line == 0 && csv_text.find("\"ID\"") == std::string_view::npos)
      return std::vector<launch_record>{};
    return unexpected("ncu's CSV, line " + std::to_string(table.error().line) + ": " + table.error().message);
  }
  bool details = false;
  for (const auto& row : table->launches)
    details = details || row.text.count(std::string{metric_name_column}) > 0;
  std::vector<launch_record> out;
  for (const auto& columns : details ? details_page(*table) : raw_page(*table)) {
    auto launch = to_launch(columns);
    if (!launch)
      return unexpected("ncu's CSV: " + launch.error());
    out.push_back(std::move(*launch));
  }
  return out;
}

} // namespace warpforge::observe
