#pragma once
// The method catalog: every optimisation method warpforge knows — axis, priority, minimum
// architecture, the ncu metric that shows the need, the diagnosis findings that trigger it and
// its SASS signature id. The shared vocabulary of the search tuner, the LLM proposer, the
// diagnoser's method budget and ablation. The data is sass/data/method_catalog.toml (its header
// documents the fields), compiled in; users may load their own copy.
//
//   const auto& catalog = method_catalog::builtin();
//   for (const auto* method : catalog.on_axis(method_axis::memory)) ...   // by priority
//   auto errors = cross_check(catalog, signature_table::builtin());      // ids agree?

#include "foundation/expected/expected.hpp"
#include "config/toml_reader/placed_error.hpp"
#include "sass/signature_table.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::sass {

/// Which roofline gap a method closes.
enum class method_axis { compute, memory, latency };

inline constexpr method_axis all_method_axes[] = {method_axis::compute, method_axis::memory,
                                                  method_axis::latency};

std::string_view to_string(method_axis axis);
std::optional<method_axis> method_axis_from_string(std::string_view text);

/// Which way a trigger metric is bad.
enum class trigger_direction {
  low_is_bad,  // raise it (e.g. tensor-pipe utilisation)
  high_is_bad, // lower it (e.g. a stall percentage)
};

inline constexpr trigger_direction all_trigger_directions[] = {trigger_direction::low_is_bad,
                                                               trigger_direction::high_is_bad};

std::string_view to_string(trigger_direction direction);
std::optional<trigger_direction> trigger_direction_from_string(std::string_view text);

/// The work a kernel must do for a method to fit it (catalog `needs`; judged from the kernel's
/// measured metrics by diagnosis/work_profile.hpp).
enum class method_need {
  arithmetic,      // floating-point work worth speeding up: not a copy or a transpose
  matrix_multiply, // dot products over reused operands: GEMM, convolution, attention
  several_kernels, // more than one kernel or launch: something to fuse, overlap or capture
};

inline constexpr method_need all_method_needs[] = {
    method_need::arithmetic, method_need::matrix_multiply, method_need::several_kernels};

std::string_view to_string(method_need need);
std::optional<method_need> method_need_from_string(std::string_view text);

/// The diagnosis rule ids a method may name in `findings`. The diagnoser owns the rules; this is
/// the list the catalog is validated against until it exports one.
inline constexpr std::array<std::string_view, 21> finding_rule_ids{
    "memory_bound",           "compute_bound",          "latency_bound",
    "low_occupancy",          "register_limited",       "waves_low",
    "waves_high",             "poor_coalescing",        "low_l1_hit",
    "low_l2_hit",             "bank_conflicts",         "stall_long_scoreboard",
    "stall_short_scoreboard", "stall_mio_throttle",     "stall_math_pipe",
    "stall_barrier",          "stall_lg_throttle",      "stall_wait",
    "stall_membar",           "low_ipc",                "spills"};

/// The metric that shows a method is needed.
struct method_trigger {
  std::string metric;                         // an ncu metric name (or a derived one, see data)
  std::optional<trigger_direction> direction; // nullopt: the source registry gives none
  std::optional<double> bad;                  // at or beyond this the method is due; metric's unit
  std::optional<double> good;                 // the value to aim for; metric's unit
};

struct method_entry {
  std::string id;                        // "<axis>.<name>", e.g. "memory.vectorized_access"
  method_axis axis = method_axis::compute;
  std::uint32_t priority = 0;            // 1 = try first within the axis; unique per axis
  std::string name;                      // human name
  std::uint32_t min_sm = 0;              // compute capability × 10 (90 = sm_90); 0 = no minimum
  std::optional<method_trigger> trigger; // nullopt: no metric given
  std::vector<std::string> findings;     // rule ids from finding_rule_ids
  std::vector<method_need> needs;        // the work it needs; empty: fits any kernel
  std::string signature;                 // id in the signature table
  std::uint32_t line = 0;                // where the entry starts in its file (1-based)
};

/// Two methods never selected together in one iteration.
struct method_coupling {
  std::array<std::string, 2> methods; // catalog ids
  std::string note;                   // why
};

class method_catalog {
public:
  /// The compiled-in sass/data/method_catalog.toml. Parsed once; a broken built-in catalog is a
  /// build defect (the tests load it) and throws std::logic_error naming its errors.
  static const method_catalog& builtin();
  /// A user's catalog; every error of the file, placed.
  static expected<method_catalog, toml_reader::placed_errors>
  load(const std::filesystem::path& path);
  /// `text` as a catalog; `file` names it in errors.
  static expected<method_catalog, toml_reader::placed_errors> parse(std::string_view text,
                                                                    std::string file);

  /// The method with `id`, or nullptr.
  const method_entry* find(std::string_view id) const;
  /// Every method, in file order.
  const std::vector<method_entry>& methods() const { return methods_; }
  /// The methods of one axis, by priority.
  std::vector<const method_entry*> on_axis(method_axis axis) const;
  const std::vector<method_coupling>& couplings() const { return couplings_; }
  /// Whether `a` and `b` are a coupled pair (in either order).
  bool coupled(std::string_view a, std::string_view b) const;
  /// The file the catalog came from.
  const std::string& file() const { return file_; }

private:
  std::string file_;
  std::vector<method_entry> methods_;
  std::vector<method_coupling> couplings_;
};

inline constexpr std::string_view builtin_catalog_file = "<builtin>/sass/data/method_catalog.toml";

/// The two files agree: every method's `signature` names an entry of `table` (error placed in
/// the catalog), and every entry of `table` whose id has an axis prefix ("memory.x") names a
/// method of `catalog` (error placed in the table). Empty when they agree.
toml_reader::placed_errors cross_check(const method_catalog& catalog, const signature_table& table);

} // namespace warpforge::sass
