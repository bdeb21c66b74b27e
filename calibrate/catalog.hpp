#pragma once
// The calibrate catalog: the hardware parameters a calibrate campaign measures for simulators
// (Accel-Sim, GPGPU-Sim), each with how it is measured, its priority and dependencies, the values
// published for it, a plausible range, the SASS its benchmark must contain and the Nsight metrics
// that corroborate it. The data is calibrate/data/catalog.toml (its header documents each field),
// compiled in; users may parse their own copy.
//
//   auto catalog = catalog::built_in();                 // or the error naming the broken entry
//   for (const auto& problem : self_check(*catalog)) ...   // meaning: ranges, dependencies, cycles
//   auto sm90 = known_for(*catalog->find("fp32_fma_throughput"), "sm_90");
//
// parse() checks the file's shape (keys, types, categories); self_check() checks what it says, so
// a user's copy is read whole and every problem of it is reported at once.

#include "foundation/expected/expected.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::calibrate {

/// What part of the GPU a parameter describes (the seed's categories).
enum class category {
  instruction_throughput,
  instruction_latency,
  tensor_throughput,
  tensor_latency,
  special_function,
  shared_memory,
  cache_hierarchy,
  memory_bandwidth,
  register_file,
  warp_scheduling,
  control_flow,
};

inline constexpr category all_categories[] = {
    category::instruction_throughput, category::instruction_latency, category::tensor_throughput,
    category::tensor_latency,         category::special_function,    category::shared_memory,
    category::cache_hierarchy,        category::memory_bandwidth,    category::register_file,
    category::warp_scheduling,        category::control_flow};

std::string_view to_string(category group);
std::optional<category> category_from_string(std::string_view text);

/// A value published for one architecture.
struct known_value {
  std::string arch;   // "sm_90"
  double value = 0;   // in the parameter's unit
  std::string source; // the citation: document, and where in it (or the arithmetic from a peak)

  bool operator==(const known_value&) const = default;
};

/// A figure published by a microbenchmark study, set beside the warpforge figure measured the
/// same way. Not a known value: it never decides a status (papers measure latencies with loops
/// and clocks of their own, so only the figure of the same method compares).
struct published_value {
  std::string figure; // the warpforge figure it compares with: "value", "raw_chase", "index_chase"
  std::string arch;   // "sm_90"
  std::string gpu;    // the card the source measured ("H100 SXM")
  double value = 0;   // in the parameter's unit
  std::string method; // how the source measured it (its loop, clock, data layout)
  std::string source; // the citation: where the number stands

  bool operator==(const published_value&) const = default;
};

/// The figures a latency benchmark reports besides its value (RESULT lines of the same names).
inline constexpr std::array<std::string_view, 3> published_figures{"value", "raw_chase", "index_chase"};

/// How a parameter's value is recomputed from the counters of its benchmark's own measured launch
/// (engine/counter_check): count x scale / over, with a byte or time counter first put in bytes
/// or seconds. "bytes / seconds x 1e-9" is GB/s; "thread instructions / SM cycles summed over
/// the SMs" is per clock per SM.
struct counter_formula {
  std::string count; // the counter summed over the launch ("dram__bytes_read.sum")
  std::string over;  // what it is divided by ("gpu__time_duration.sum", "sm__cycles_elapsed.sum")
  double scale = 1;  // the unit's factor (1e-9: bytes per second -> GB/s; 2: an HFMA2 is two ops)

  bool operator==(const counter_formula&) const = default;
};

inline constexpr std::uint32_t lowest_priority = 4; // priorities run 1 (most needed) .. 4

/// How a cache size (a KiB or MiB parameter with a sweep) is read from its benchmark's curve.
enum class size_rule {
  onset,    // where the curve leaves its first level for good (results/knee.hpp)
  miss_fit, // the capacity C of latency = L_miss - (L_miss - L_hit) C / F fitted past the knee
            // (results/capacity_fit.hpp): for sweeps of independent references
};

inline constexpr size_rule all_size_rules[] = {size_rule::onset, size_rule::miss_fit};

std::string_view to_string(size_rule rule);
std::optional<size_rule> size_rule_from_string(std::string_view text);

struct parameter {
  std::string name;                // "fp32_fma_latency" ([a-z0-9_]); the benchmark registry and
                                   // the simulator mapping use this name
  category group = category::instruction_latency;
  std::string unit;                // "cycles", "bytes", "GB/s", "ops/clk/SM", "KiB", ...
  std::string technique;           // one line: how it is measured
  std::uint32_t priority = lowest_priority; // 1 (most needed by simulators) .. 4
  std::vector<std::string> depends_on;      // parameter names measured first
  std::vector<known_value> known;           // published values per arch, each cited
  double range_min = 0, range_max = 0;      // a plausible bracket (soft check); the unit above
  std::vector<std::string> expected_sass;   // opcodes the benchmark's SASS must contain ("FFMA")
  std::vector<std::string> validation_metrics; // Nsight Compute metrics that corroborate it
  std::string description;
  // What the value includes and leaves out, where methods differ between sources (the latencies:
  // a clocked chase per step or a window over thousands of steps); "" when the technique says it.
  std::string method;
  std::optional<counter_formula> rederive;  // the value recomputed from counters; none: not re-derivable
  std::vector<published_value> literature;  // microbenchmark studies' figures, each with its method
  std::string literature_not_found;         // where none was found: which sources were searched
  size_rule size_from = size_rule::onset;   // cache sizes: how the curve gives the value
  std::uint32_t line = 0;          // where its [[parameter]] starts in its file (1-based); 0: built
                                   // in code

  bool operator==(const parameter&) const = default;
};

class catalog {
public:
  /// The compiled-in calibrate/data/catalog.toml, parsed and self-checked; an error here is a
  /// build defect (the tests load it) and names every problem.
  static expected<catalog, std::string> built_in();
  /// `toml_text` as a catalog; `file` names it in errors. Shape only: every missing, mistyped or
  /// unknown entry, one "file:line:col: key: message" line each. Run self_check() for meaning.
  static expected<catalog, std::string> parse(std::string_view toml_text, std::string file);
  /// A user's catalog file (parse() of its text; a missing file is an error naming it).
  static expected<catalog, std::string> load(const std::filesystem::path& path);

  /// Every parameter, in file order (the schedule's last tie-break).
  const std::vector<parameter>& parameters() const { return parameters_; }
  /// The parameter called `name`, or nullptr.
  const parameter* find(std::string_view name) const;
  /// The file the catalog came from ("<builtin>/calibrate/data/catalog.toml" when built in).
  const std::string& file() const { return file_; }

  /// A catalog of parameters built in code (tests, tools); `file` names it in problems.
  static catalog from(std::vector<parameter> parameters, std::string file = "<code>");

private:
  std::string file_;
  std::vector<parameter> parameters_;
};

inline constexpr std::string_view built_in_catalog_file = "<builtin>/calibrate/data/catalog.toml";

/// Every problem of what the catalog says, one line each, "file:line: name: problem": a known
/// value outside its own range, a range whose low end is not below its high end, an unknown or
/// repeated dependency, a dependency on itself, a dependency cycle (named in order), a dependency
/// with a larger priority number than its dependent, a size_from on a parameter that is not a
/// cache size (KiB, MiB), a duplicate name, a name not [a-z0-9_], an
/// empty unit / technique / description / validation_metrics / source / arch, expected_sass empty
/// at priority 1-3 (those have built-in benchmarks), priority 0 or above 4, two known values for
/// one arch, a literature figure other than value / raw_chase / index_chase or without its
/// method or source, a memory latency or cache size (a cache_hierarchy or shared_memory entry in
/// cycles, KiB or MiB) without its method or without any published figure (known, literature)
/// or a literature_not_found saying what was searched. Empty when the catalog is sound.
std::vector<std::string> self_check(const catalog& parameters);

/// The value published for `arch` ("sm_90"); an "sm_90a" target matches "sm_90" (the suffix only
/// unlocks instructions, the hardware is the same). nullopt when none is published.
std::optional<known_value> known_for(const parameter& what, std::string_view arch);

} // namespace warpforge::calibrate
