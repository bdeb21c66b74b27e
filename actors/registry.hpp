#pragma once
// Where actors find each other. The supervisor puts every child it (re)spawns into CAF's actor
// registry under the child's name, so a handle looked up at send time is never a dead one from
// before a restart. Names are CAF 0.17 atoms: at most 10 characters ("store", "feed", "gpu.12").

#include <caf/actor_cast.hpp>
#include <caf/actor_registry.hpp>
#include <caf/actor_system.hpp>
#include <caf/atom.hpp>

#include <string_view>

namespace warpforge::actors {

/// The registry key of a component name; throws std::invalid_argument past 10 characters
/// (a broken invariant: names are fixed in code).
caf::atom_value registry_key(std::string_view name);

/// The current handle of a named component, or an invalid handle when none is registered.
template <class Handle>
Handle lookup(caf::actor_system& system, std::string_view name) {
  return system.registry().get<Handle>(registry_key(name));
}

inline constexpr std::string_view store_name = "store";
inline constexpr std::string_view feed_name = "feed";
inline constexpr std::string_view supervisor_name = "supervisor";

} // namespace warpforge::actors
