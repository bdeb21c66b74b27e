#pragma once
// From an observation to a problem's weighted configurations: the [[configs]] a campaign times
// every candidate at (config/problem_configs.hpp reads them back; docs/specs.md, "Configurations").
//
//   auto spec = load_problem_to_observe("problem.toml"); // its configs file may not exist yet
//   auto mapped = map_to_configs(observed, *spec);       // configs + notes, or why not
//   write_configs_file(configs_destination_for(*spec, "", "transpose").path, *mapped, observed);
//
// The mapping: a scalar argument of the problem whose `value` expression is exactly one dim name
// ("value = \"ROWS\"") takes, at each representative configuration, the observed value of the
// kernel parameter at that argument's position (decoded with the argument's dtype). The problem
// is then resolved at those dims and its default tunables, and the launch geometry it gives is
// compared with the one the program used: a mismatch is a note naming both, never silently
// accepted. Representatives that land on the same dims (a geometry's fast and slow buckets) are
// one config, their weights added. Dims no scalar binds keep their [dims] value (a note says so).
// A config's weight is its LAUNCH COUNT in the observed run: a candidate's time, the weighted sum
// of its medians, is then (up to the constant total) the kernel time the program spends in these
// configs, which is what a deploy measures. (A weight by share of time would count the long
// launches twice: once in their share and again in their own time.)
// ncu observations carry no parameter values: mapping them is an error that says to use cupti.

#include "config/problem_spec.hpp"
#include "foundation/expected/expected.hpp"
#include "deploy/observe/observation_file.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpforge::observe {

/// One configuration to write.
struct observed_config {
  std::string name;   // the bound dims' values joined by 'x' ("8192x8192")
  double weight = 0;  // launches per run of the program (the loader normalises the weights)
  std::vector<std::pair<std::string, std::int64_t>> dims; // bound dims, in the spec's [dims] order
  std::vector<std::size_t> representatives; // indexes into the kernel's representative configs
  std::string geometry; // what the program launched: "grid (256,256,1) block (32,8,1) smem 0"
};

struct configs_mapping {
  std::string kernel;      // the kernel whose representatives were mapped (symbol)
  double covered = 0;      // share of that kernel's time the configs stand for, 1.0 = 100%
  std::vector<observed_config> configs;
  std::vector<std::string> notes; // geometry mismatches, unbound dims, merges
};

/// The configurations of `observed` for `spec`. An error when no kernel of the observation is the
/// spec's entry (several kernels observed), no scalar is bound to a dim, a launch carries no
/// parameter values (ncu), the parameter count differs from the spec's arguments, a value does
/// not decode or is not a positive dim, or the problem cannot be resolved at a configuration.
expected<configs_mapping, std::string> map_to_configs(const observation& observed, const config::problem_spec& spec);

/// The configs file's text: a header comment (command, signature, method, coverage, notes),
/// then one [[configs]] table each (name, weight, dims as an inline table).
std::string configs_toml(const configs_mapping& mapping, const observation& observed);

/// Writes configs_toml whole or not at all; the error names the step and the file.
expected<void, std::string> write_configs_file(const std::filesystem::path& path, const configs_mapping& mapping,
                                               const observation& observed);

/// `<problem file's folder>/<kernel>.configs.toml` (the kernel name's unsafe characters as '_').
std::filesystem::path default_configs_path(const std::filesystem::path& problem_file, std::string_view kernel);

/// The problem as `observe --problem` needs it: everything but the configs file its
/// `configs_file` names (config::load_options::read_configs_file off), which observe writes and
/// which may not exist yet, or no longer fit. spec.configs_file still says where it goes.
expected<config::problem_spec, toml_reader::placed_errors> load_problem_to_observe(const std::filesystem::path& path);

/// Where observe writes the configs and whether that is the file the problem reads.
struct configs_destination {
  std::filesystem::path path;
  bool problem_reads_it = false; // path is the problem's configs_file
};

/// `configs_out` when given; else the problem's configs_file when it names one; else
/// default_configs_path(spec.file, kernel) (the problem does not read it until it names it).
configs_destination configs_destination_for(const config::problem_spec& spec, const std::filesystem::path& configs_out,
                                            std::string_view kernel);

} // namespace warpforge::observe
