#include "actors/registry.hpp"

#include <stdexcept>
#include <string>

namespace warpforge::actors {

caf::atom_value registry_key(std::string_view name) {
  constexpr std::size_t max_atom_length = 10; // CAF 0.17 atoms
  if (name.empty() || name.size() > max_atom_length)
    throw std::invalid_argument("actor name '" + std::string{name}
                                + "' must have 1 to 10 characters");
  return caf::atom_from_string(caf::string_view{name.data(), name.size()});
}

} // namespace warpforge::actors
