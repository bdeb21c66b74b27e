#include "messages/status.hpp"

namespace warpforge::messages {

std::string_view to_string(component_state state) {
  switch (state) {
    case component_state::starting: return "starting";
    case component_state::running: return "running";
    case component_state::degraded: return "degraded";
    case component_state::stopping: return "stopping";
    case component_state::stopped: return "stopped";
    case component_state::failed: return "failed";
  }
  return "unknown";
}

std::optional<component_state> component_state_from_string(std::string_view text) {
  for (auto state : all_component_states)
    if (to_string(state) == text)
      return state;
  return std::nullopt;
}

} // namespace warpforge::messages
