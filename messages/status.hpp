#pragma once
// The status protocol: every actor answers `status_atom` with a `component_status`, so the
// supervisor, the feed and the CLI ask every component the same question.

#include "messages/atoms.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::messages {

enum class component_state : std::uint8_t { starting, running, degraded, stopping, stopped, failed };

std::string_view to_string(component_state state);
std::optional<component_state> component_state_from_string(std::string_view text);
inline constexpr component_state all_component_states[] = {
  component_state::starting, component_state::running,  component_state::degraded,
  component_state::stopping, component_state::stopped,  component_state::failed,
};

/// One named number a component wants to show (events published, rows written, restarts...).
struct counter {
  std::string name;
  std::int64_t value = 0;
  friend bool operator==(const counter&, const counter&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, counter& x) {
  return f(caf::meta::type_name("counter"), x.name, x.value);
}

struct component_status {
  std::string component;    // "store", "feed", "gpu.0", ...
  component_state state = component_state::starting;
  std::string detail;       // one human line: what it is doing or why it is degraded
  std::vector<counter> counters;
  friend bool operator==(const component_status&, const component_status&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, component_status& x) {
  return f(caf::meta::type_name("component_status"), x.component, x.state, x.detail, x.counters);
}

/// The handler every actor interface includes.
using status_handler = caf::replies_to<status_atom>::with<component_status>;

} // namespace warpforge::messages
