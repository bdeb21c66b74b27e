#pragma once
// The command line of one `warpforge host` (apps/warpforge/cli/host.cpp; docs/hosts.md):
//
//   warpforge host --coordinator HOST:PORT --credential DIR
//
// The one place that spells it: the sbatch script (sbatch_script.hpp) and anything that starts a
// host itself build it from here.

#include "config/hosts_spec.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace warpforge::hosts {

struct host_command {
  std::filesystem::path warpforge;  // the warpforge executable, as the nodes see it
  config::host_address coordinator; // where each host calls back to, reachable from the nodes
  std::filesystem::path credential; // the campaign's credential folder, as the nodes see it
};

/// argv[1..] of one host: {"host", "--coordinator", "HOST:PORT", "--credential", DIR}.
std::vector<std::string> host_arguments(const host_command& command);

} // namespace warpforge::hosts
