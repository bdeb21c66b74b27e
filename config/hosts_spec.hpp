#pragma once
// [hosts]: where a campaign's GPU hosts come from (docs/hosts.md). Absent, the campaign uses this
// machine's GPUs only. Either a list of `warpforge host` processes already running:
//
//   [hosts]
//   addresses = ["node1:4242", "10.0.0.7:4242", "[fd00::7]:4242"]
//
// or a Slurm allocation that `warpforge run` submits itself, one host per node
// (pipeline/hosts/ writes and submits the sbatch script):
//
//   [hosts.slurm]
//   partition = "gpu"                  # optional; absent: the cluster's default partition
//   nodes = 2                          # one `warpforge host` per node
//   gpus_per_node = 4                  # --gres=gpu:4
//   time_limit = "8:00:00"             # Slurm's --time format; required, never unlimited
//   sbatch_options = ["--account=proj42", "--qos=normal"]   # extra #SBATCH lines
//
// This header keeps toml++ out; hosts_spec_toml.hpp reads a parsed table.

#include "config/toml_reader/placed_error.hpp"
#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::config {

/// Limits of [hosts.slurm] (typo guards, not Slurm's own limits).
namespace hosts_limits {
inline constexpr std::int64_t max_nodes = 1024;         // nodes
inline constexpr std::int64_t max_gpus_per_node = 64;   // GPUs
inline constexpr std::size_t max_option_chars = 256;    // characters of one sbatch option
inline constexpr std::size_t max_partition_chars = 128; // characters of a partition name
} // namespace hosts_limits

/// Where a `warpforge host` listens.
struct host_address {
  std::string host;       // a DNS name, an IPv4 address, or an IPv6 address (without its brackets)
  std::uint16_t port = 0; // 1..65535

  /// "node1:4242", "[fd00::7]:4242": as written in the spec and on a command line.
  std::string to_string() const;
  bool operator==(const host_address&) const = default;
};

/// `text` as HOST:PORT (an IPv6 address in brackets), or why it is not one.
expected<host_address, std::string> parse_host_address(std::string_view text);

/// A Slurm time limit (sbatch --time): "minutes", "minutes:seconds", "hours:minutes:seconds",
/// "days-hours", "days-hours:minutes" or "days-hours:minutes:seconds"; its length in seconds
/// (> 0), or why it is not one. "UNLIMITED" and "INFINITE" are refused: the jobs must end even
/// when the coordinator is killed before it can cancel them.
expected<std::uint64_t, std::string> parse_slurm_time_limit(std::string_view text);

/// Why `option` may not be an extra sbatch option, or nullopt when it may. Allowed: the long form
/// `--name` or `--name=value`, the name lower case letters, digits and '-', the value letters,
/// digits and `_ . , : = / @ % + -` only. No spaces, quotes, `$`, `;`, `|`, `&`, `<`, `>`, `\`,
/// backquote or newline: each option becomes an `#SBATCH` line of a script that runs on the
/// cluster, where a newline would start a command of its own and sbatch reads quotes and spaces
/// otherwise than a shell does; a plain option means what it looks like. Options the spec sets
/// itself (--nodes, --partition, --gres, --time, ...) are refused, abbreviated too (sbatch takes
/// any unique prefix of a long option).
std::optional<std::string> sbatch_option_problem(std::string_view option);

/// [hosts.slurm]: one `warpforge host` per node of one Slurm job.
struct slurm_spec {
  std::string partition;                   // --partition; empty: the cluster's default
  std::uint32_t nodes = 1;                 // --nodes, one host each, 1..max_nodes
  std::uint32_t gpus_per_node = 1;         // --gres=gpu:N, 1..max_gpus_per_node
  std::string time_limit;                  // --time, as written (Slurm's format)
  std::uint64_t time_limit_s = 0;          // the same, seconds
  std::vector<std::string> sbatch_options; // extra options, each passed sbatch_option_problem
  toml_reader::place place;                // of [hosts.slurm]

  bool operator==(const slurm_spec&) const = default;
};

struct hosts_spec {
  std::vector<host_address> addresses; // [hosts] addresses: hosts already running, distinct
  std::optional<slurm_spec> slurm;     // [hosts.slurm]: hosts the run submits
  // At most one of the two; neither: this machine's GPUs only.

  bool local_only() const { return addresses.empty() && !slurm; }
  bool operator==(const hosts_spec&) const = default;
};

} // namespace warpforge::config
