#pragma once
// sass checker: a thin shell over pipeline::check_sass. Disassembling runs a child process
// (nvdisasm or cuobjdump) and blocks, so it is spawned detached.

#include "messages/sass.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <cstdint>

namespace warpforge::actors {

inline constexpr std::string_view sass_checker_name = "sass";

struct sass_checker_state {
  static inline const char* name = "sass";

  std::int64_t checked = 0;  // orders answered
  std::int64_t absent = 0;   // claimed methods a real listing did not show

  pipeline::sass_verdict check(const pipeline::sass_order& order);
  messages::component_status status() const;
};

messages::sass_actor::behavior_type
sass_checker(messages::sass_actor::stateful_pointer<sass_checker_state> self);

} // namespace warpforge::actors
