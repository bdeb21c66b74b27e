#include "tuning/exhaustive_strategy.hpp"

#include <utility>

namespace warpforge::tuning {

exhaustive_strategy::exhaustive_strategy(std::shared_ptr<const search_space> space)
    : strategy(std::move(space)) {}

void exhaustive_strategy::fill() {
  // Points skipped here were valid-and-new only if pending; the base class gives those back
  // through its retry queue when they come back unevaluated.
  for (; room() > 0 && cursor_ < space().size(); ++cursor_)
    offer(cursor_);
}

} // namespace warpforge::tuning
