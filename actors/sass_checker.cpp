#include "actors/sass_checker.hpp"

#include "actors/exceptions.hpp"

#include <caf/exit_reason.hpp>

namespace warpforge::actors {

std::string sass_checker_name(std::size_t index) { return "sass." + std::to_string(index); }

pipeline::sass_verdict sass_checker_state::check(const pipeline::sass_order& order) {
  auto verdict = pipeline::check_sass(order);
  ++checked;
  absent += static_cast<std::int64_t>(verdict.absent.size());
  return verdict;
}

messages::component_status sass_checker_state::status() const {
  return {component, messages::component_state::running, "method signatures in the SASS",
          {{"checked", checked}, {"absent", absent}}};
}

messages::sass_actor::behavior_type
sass_checker(messages::sass_actor::stateful_pointer<sass_checker_state> self, std::string component) {
  keep_exception_text(self);
  self->state.component = std::move(component);
  return {
    [self](const pipeline::sass_order& order) { return self->state.check(order); },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
