#include "pipeline/hosts/sbatch_script.hpp"

#include <algorithm>

namespace warpforge::hosts {

namespace {

bool is_plain_char(char c) {
  static constexpr std::string_view extra = "_./-+,:=@";
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         extra.find(c) != std::string_view::npos;
}

} // namespace

std::filesystem::path hosts_folder(const std::filesystem::path& run_dir) { return run_dir / paths::folder; }

std::string slurm_job_name(const std::filesystem::path& run_dir) {
  std::string name = run_dir.filename().empty() ? run_dir.parent_path().filename().string()
                                                : run_dir.filename().string();
  std::replace_if(
    name.begin(), name.end(),
    [](char c) { return !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                          c == '.' || c == '_' || c == '-'); },
    '_');
  return std::string{"warpforge-hosts-"}.append(name);
}

std::optional<std::string> plain_path_problem(const std::filesystem::path& path) {
  const std::string text = path.string();
  const auto bad = std::find_if_not(text.begin(), text.end(), is_plain_char);
  if (bad == text.end())
    return std::nullopt;
  const auto byte = static_cast<unsigned char>(*bad);
  std::string shown = "a space";
  if (*bad != ' ')
    shown = (byte < 0x20 || byte >= 0x7f) ? "byte " + std::to_string(byte) : std::string{'\'', *bad, '\''};
  return "the path '" + text + "' holds " + shown +
         ", which an #SBATCH line cannot carry as written: letters, digits and _ . / - + , : = @ only";
}

std::string shell_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  out += '\'';
  return out;
}

std::string sbatch_script(const config::slurm_spec& spec, const host_command& command,
                          const std::filesystem::path& run_dir) {
  const std::string gres = std::string{"--gres=gpu:"}.append(std::to_string(spec.gpus_per_node));
  std::string out = "#!/bin/sh\n";
  out += "# The warpforge hosts of the run " + run_dir.string() + ": one `warpforge host` per node,\n";
  out += "# each calling back to the coordinator at " + command.coordinator.to_string() + ".\n";
  out += "# Written and submitted by warpforge; cancelled at the campaign's end, on Ctrl-C and by\n";
  out += "# `warpforge stop` (docs/hosts.md, \"Slurm\").\n";
  const auto directive = [&](const std::string& option) { out += "#SBATCH " + option + "\n"; };
  directive("--job-name=" + slurm_job_name(run_dir));
  directive("--nodes=" + std::to_string(spec.nodes));
  directive("--ntasks-per-node=1");
  directive(gres);
  directive("--time=" + spec.time_limit);
  if (!spec.partition.empty())
    directive("--partition=" + spec.partition);
  directive("--output=" + (hosts_folder(run_dir) / paths::output).string());
  for (const auto& option : spec.sbatch_options) // last, so they may override --output
    directive(option);
  // A lost host must not take the others with it: the coordinator requeues its races.
  out += "exec srun --ntasks-per-node=1 " + gres + " --kill-on-bad-exit=0";
  out += ' ';
  out += shell_quoted(command.warpforge.string());
  for (const auto& argument : host_arguments(command)) {
    out += ' ';
    out += shell_quoted(argument);
  }
  out += '\n';
  return out;
}

} // namespace warpforge::hosts
