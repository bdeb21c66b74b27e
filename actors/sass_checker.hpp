#pragma once
// sass checker: a thin shell over pipeline::check_sass. Disassembling runs a child process
// (nvdisasm or cuobjdump) and blocks, so it is spawned detached, and there are as many as
// compilers ("sass.0" ...): with one, every candidate of every job waited in a single line for
// its disassembly (on a 4-GPU H200 host, a 12-job sweep's jobs took 30 s whatever the GPU count).

#include "messages/sass.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <cstdint>
#include <string>

namespace warpforge::actors {

/// The registry name of SASS checker `index` ("sass.0").
std::string sass_checker_name(std::size_t index);

struct sass_checker_state {
  static inline const char* name = "sass";

  std::string component;     // its registry name, for the status
  std::int64_t checked = 0;  // orders answered
  std::int64_t absent = 0;   // claimed methods a real listing did not show

  pipeline::sass_verdict check(const pipeline::sass_order& order);
  messages::component_status status() const;
};

messages::sass_actor::behavior_type
sass_checker(messages::sass_actor::stateful_pointer<sass_checker_state> self, std::string component);

} // namespace warpforge::actors
