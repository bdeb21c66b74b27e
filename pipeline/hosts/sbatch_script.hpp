#pragma once
// The sbatch script of a campaign's Slurm hosts: one job of [hosts.slurm] nodes, one task per
// node, each task one `warpforge host` (host_command.hpp) started by srun. Every setting is an
// #SBATCH line, so the file in the run directory is exactly what was submitted and can be read or
// submitted again by hand:
//
//   #!/bin/sh
//   #SBATCH --job-name=warpforge-hosts-nightly-20261127-140000
//   #SBATCH --nodes=2
//   #SBATCH --ntasks-per-node=1
//   #SBATCH --gres=gpu:4
//   #SBATCH --time=8:00:00
//   #SBATCH --partition=gpu
//   #SBATCH --output=/home/me/runs/nightly-20261127-140000/hosts/slurm-%j.out
//   #SBATCH --account=proj42                       (sbatch_options, last: they may override --output)
//   exec srun --ntasks-per-node=1 --gres=gpu:4 --kill-on-bad-exit=0 '/opt/warpforge/bin/warpforge'
//        'host' '--coordinator' 'head1:4242' '--credential' '/home/me/...'   (one line)
//
// The host's arguments are single-quoted for the shell; the #SBATCH lines hold only checked,
// plain text (config/hosts_spec.hpp, and the run directory's path: plain_path_problem).

#include "config/hosts_spec.hpp"
#include "pipeline/hosts/host_command.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::hosts {

/// Where the hosts' files lie in a run directory.
namespace paths {
inline constexpr std::string_view folder = "hosts";        // <run_dir>/hosts/
inline constexpr std::string_view script = "slurm.sbatch"; // the script as submitted
inline constexpr std::string_view job_record = "slurm-job"; // the job id, one line, while it may run
inline constexpr std::string_view output = "slurm-%j.out";  // the job's output (sbatch's %j: the id)
} // namespace paths

std::filesystem::path hosts_folder(const std::filesystem::path& run_dir);

/// "warpforge-hosts-<run directory's name>", characters outside [A-Za-z0-9._-] as '_'.
std::string slurm_job_name(const std::filesystem::path& run_dir);

/// Why `path` cannot be written in an #SBATCH line, or nullopt: letters, digits and `_ . / - + , : = @`
/// only (no space, quote or '%', which sbatch would read as a pattern).
std::optional<std::string> plain_path_problem(const std::filesystem::path& path);

/// `text` single-quoted for /bin/sh: 'it'\''s'.
std::string shell_quoted(std::string_view text);

/// The script for `spec`'s job in the absolute run directory `run_dir` (plain_path_problem holds).
std::string sbatch_script(const config::slurm_spec& spec, const host_command& command,
                          const std::filesystem::path& run_dir);

} // namespace warpforge::hosts
