#pragma once
// What was wrong with a JSON document warpforge reads back (runner protocol, device reports).

#include <string>

namespace warpforge::gpu {

/// "<context>.<field>: <problem>", e.g. "reply.body.devices[0].sm_count: missing".
struct json_error {
  std::string detail;
};

} // namespace warpforge::gpu
