#pragma once
// The ncu fallback metric source: parse `ncu --csv --page raw` output (with or without
// `--print-units base`) and map it onto the metric schema. CUPTI's range profiler is the primary
// source; it yields the same Nsight names, in Nsight's base units (map_base_units below).
//
// Layout (Nsight Compute CLI, --page raw --csv), each field double-quoted:
//   "ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",
//     "Grid Size","Device","CC",<metric name>...                          <- header
//   "","","","","","","","","","","",<metric unit>...                     <- units ("%", "byte",
//                                                                            "Kbyte", "nsecond", ...)
//   "0","4242","bench","node7","copy_kernel(...)",...,<value>...          <- one row per launch
// Lines starting with "==" (==PROF==, ==WARNING==) and anything before the header (the program's
// own output) are skipped. Values may carry thousands separators ("1,048,576"), which are removed;
// "n/a" and "" mean no value. Metric columns are those whose name contains "__" (every Nsight
// metric name does); the identity columns are kept by name. Unit conversions: metric_unit.hpp.

#include "diagnosis/metric_values.hpp"
#include "diagnosis/metric_schema.hpp"
#include "foundation/expected/expected.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::diagnosis {

/// One metric column of one launch.
struct ncu_value {
  std::string name;            // Nsight metric name
  std::string unit;            // as in the units row
  std::string text;            // as printed
  std::optional<double> value; // parsed; none for "n/a", "" or text that is not a number
};

/// One profiled kernel launch (one CSV row).
struct ncu_launch {
  std::string id;          // "ID": ncu's launch index
  std::string kernel_name; // "Kernel Name"
  std::string block_size;  // "Block Size", e.g. "(256, 1, 1)"
  std::string grid_size;   // "Grid Size"
  std::string device;      // "Device"
  std::string cc;          // "CC": compute capability, e.g. "9.0"
  std::vector<ncu_value> values;
  std::uint32_t line = 0;  // line of the row in the text

  const ncu_value* find(std::string_view name) const;
};

struct ncu_report {
  std::vector<ncu_launch> launches;
  std::uint32_t skipped_lines = 0; // "==" lines and lines before the header
};

enum class ncu_parse_failure : std::uint8_t {
  no_header,          // no line starting with "ID" and naming a "Kernel Name" column
  no_units_row,       // the line after the header is not a units row (empty identity fields)
  wrong_field_count,  // a row with more or fewer fields than the header
  unterminated_quote, // a quoted field that never closes
};
inline constexpr std::array all_ncu_parse_failures{
  ncu_parse_failure::no_header, ncu_parse_failure::no_units_row,
  ncu_parse_failure::wrong_field_count, ncu_parse_failure::unterminated_quote};
std::string_view to_string(ncu_parse_failure failure);
std::optional<ncu_parse_failure> ncu_parse_failure_from_string(std::string_view text);

struct ncu_parse_error {
  ncu_parse_failure failure = ncu_parse_failure::no_header;
  std::uint32_t line = 0; // 1-based line of the text; 0 = the text as a whole
  std::string message;

  bool operator==(const ncu_parse_error&) const = default;
};
/// "line 7: wrong_field_count: 14 fields, the header has 15".
std::string to_string(const ncu_parse_error& error);

expected<ncu_report, ncu_parse_error> parse_ncu_raw_csv(std::string_view text);

/// The launch with the largest gpu__time_duration.sum (cuda-kernel-optimizer's choice, SEEDS-FACTS
/// 2.11) among those whose kernel name contains `name_part` (all when empty); nullptr if none.
const ncu_launch* longest_launch(const ncu_report& report, std::string_view name_part = {});

/// Nsight values as schema metrics.
struct schema_mapping {
  struct skipped_value {
    std::string nsight; // the Nsight metric
    std::string key;    // the schema key it would have filled
    std::string reason; // "no value ('n/a')", a unit mismatch, ...
  };
  metric_values values;               // schema key -> value in schema units
  std::vector<skipped_value> skipped; // present but unusable, in schema order
  std::vector<std::string> missing;   // schema Nsight names the source did not provide
  std::vector<std::string> unmapped;  // Nsight names the schema does not know
};

/// One ncu launch onto `schema`, converting each value from its units-row unit.
schema_mapping map_to_schema(const ncu_launch& launch, const metric_schema& schema);

/// Nsight name -> value in Nsight's base units ("%", "nsecond", "byte", "byte/second", counts):
/// what CUPTI's range profiler returns and `ncu --print-units base` prints.
using nsight_values = std::map<std::string, double, std::less<>>;
schema_mapping map_base_units(const nsight_values& values, const metric_schema& schema);

} // namespace warpforge::diagnosis
