#include "pipeline/candidate.hpp"

namespace warpforge::pipeline {

std::string_view to_string(define_set set) {
  switch (set) {
  case define_set::tunables_and_own: return "tunables_and_own";
  case define_set::own_only: return "own_only";
  }
  return "unknown";
}

std::optional<define_set> define_set_from_string(std::string_view text) {
  for (auto set : all_define_sets)
    if (to_string(set) == text)
      return set;
  return std::nullopt;
}

} // namespace warpforge::pipeline
