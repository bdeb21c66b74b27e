#pragma once
// compiler: a thin shell over pipeline::compile. Several run side by side (registered
// "compile.0", "compile.1", ...: as many as cores, or the campaign's [compiler] workers), each
// one compile at a time on its own thread (NVRTC blocks), so the next candidates compile while
// the GPUs time the current ones.

#include "messages/compiler.hpp"
#include "pipeline/build.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <cstdint>
#include <string>

namespace warpforge::actors {

/// The registry name of compiler `index` ("compile.0").
std::string compiler_name(std::size_t index);

struct compiler_state {
  static inline const char* name = "compiler";

  pipeline::compile_function compile; // the content-cached NVRTC compile (or a test's)
  std::string component;              // its registry name, for the status
  std::int64_t compiled = 0;          // orders answered
  std::int64_t failed = 0;            // ... with compile_error
  std::int64_t cache_hits = 0;

  pipeline::built_kernel build(const pipeline::compile_order& order);
  messages::component_status status() const;
};

/// Spawn detached: compiles block.
messages::compiler_actor::behavior_type
compiler(messages::compiler_actor::stateful_pointer<compiler_state> self, std::string component,
         pipeline::compile_function compile);

} // namespace warpforge::actors
