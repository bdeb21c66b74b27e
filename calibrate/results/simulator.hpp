#pragma once
// Simulator config fragments from measured parameters: Accel-Sim (its gpgpusim.config and
// trace.config keys) and GPGPU-Sim (PTX mode). What each key is made of is data,
// calibrate/results/data/simulator_keys.toml (compiled in; README.md walks it): a key is one or
// more parts joined by a separator, each part a formula over parameter values.
//
//   std::string cfg = accel_sim_config(results);     // paste over the matching lines
//
// Only parameters with a passing status (PASS, PASS_WITH_NOTE) are written. A key whose inputs
// are missing, not passing, or left for the user (a placeholder) is written as a comment that
// says why, so the fragment shows what it could not fill.

#include "calibrate/results/parameter_result.hpp"
#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::calibrate {

enum class simulator : std::uint8_t { accel_sim, gpgpu_sim };
std::string_view to_string(simulator s);                         // "accel_sim", "gpgpu_sim"
std::optional<simulator> simulator_from_string(std::string_view text);

/// How one part of a key's value is computed.
enum class part_formula : std::uint8_t {
  value,               // from[0]
  difference,          // from[0] - from[1]: the simulator adds level latencies (L2 = L1 + rop)
  product,             // from[0] x from[1] x ...
  initiation_interval, // work / from[0]: cycles between instructions issued to one unit, from a
                       // per-SM throughput; `work` = the SM's units x work per warp instruction
  literal,             // `text` as written, with its `source` (a value no benchmark measures)
  placeholder,         // `text` for the user to fill: the key is written as a comment
};
std::string_view to_string(part_formula f);
std::optional<part_formula> part_formula_from_string(std::string_view text);

struct key_part {
  part_formula formula = part_formula::value;
  std::vector<std::string> from; // parameter names (catalog names)
  double scale = 1;              // multiplies the result: the unit conversion (KiB -> bytes: 1024)
  double work = 0;               // initiation_interval only: ops or FLOP per initiation of every unit
  bool integer = true;           // rounded to the nearest integer (simulators read unsigned ints)
  std::string text;              // literal / placeholder: the text written
  std::string source;            // literal: where the value comes from
};

struct simulator_key {
  std::vector<simulator> simulators; // the fragments that carry it
  std::string file;                  // Accel-Sim's file: "gpgpusim.config" or "trace.config"
  std::string key;                   // "-gpgpu_l1_latency"
  std::vector<key_part> parts;
  std::string separator = ",";       // between parts ("1755:1755:1755:..." uses ":")
  std::string note;                  // why this mapping (written above the key)
};

struct simulator_mapping {
  std::vector<simulator_key> keys; // in file order; the fragment keeps it
};

/// The compiled-in data/simulator_keys.toml.
expected<simulator_mapping, std::string> built_in_simulator_mapping();
/// A mapping from TOML text; errors name file:line:column and the key.
expected<simulator_mapping, std::string> parse_simulator_mapping(std::string_view toml_text,
                                                                 const std::string& file);

/// The fragment for `target` from `results`, with `mapping`.
std::string simulator_config(simulator target, const std::vector<parameter_result>& results,
                             const simulator_mapping& mapping);

/// The Accel-Sim fragment (gpgpusim.config keys, then trace.config keys), built-in mapping.
std::string accel_sim_config(const std::vector<parameter_result>& results);
/// The GPGPU-Sim fragment (gpgpusim.config keys, PTX-mode latencies), built-in mapping.
std::string gpgpu_sim_config(const std::vector<parameter_result>& results);

} // namespace warpforge::calibrate
