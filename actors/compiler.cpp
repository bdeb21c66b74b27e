#include "actors/compiler.hpp"

#include "actors/exceptions.hpp"

#include <caf/exit_reason.hpp>

namespace warpforge::actors {

std::string compiler_name(std::size_t index) {
  return "compile." + std::to_string(index);
}

pipeline::built_kernel compiler_state::build(const pipeline::compile_order& order) {
  auto kernel = pipeline::compile(order, compile);
  ++compiled;
  failed += kernel.outcome == vocabulary::branch_outcome::compile_error;
  cache_hits += kernel.cache_hit;
  return kernel;
}

messages::component_status compiler_state::status() const {
  return {component, messages::component_state::running, "NVRTC through the content cache",
          {{"compiled", compiled}, {"compile_errors", failed}, {"cache_hits", cache_hits}}};
}

messages::compiler_actor::behavior_type
compiler(messages::compiler_actor::stateful_pointer<compiler_state> self, std::string component,
         pipeline::compile_function compile) {
  keep_exception_text(self);
  self->state.compile = std::move(compile);
  self->state.component = std::move(component);
  return {
    [self](const pipeline::compile_order& order) { return self->state.build(order); },
    [self](messages::stop_atom) { self->quit(caf::exit_reason::user_shutdown); },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

} // namespace warpforge::actors
