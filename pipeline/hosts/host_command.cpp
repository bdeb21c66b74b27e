#include "pipeline/hosts/host_command.hpp"

namespace warpforge::hosts {

std::vector<std::string> host_arguments(const host_command& command) {
  return {"host", "--coordinator", command.coordinator.to_string(), "--credential", command.credential.string()};
}

} // namespace warpforge::hosts
