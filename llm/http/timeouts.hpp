#pragma once
// The four deadlines of one HTTP exchange. Each failure says which one ran out
// (failure_kind::timeout_connect ... timeout_total), so a caller can tell a dead host from a model
// that thinks for a long time.

#include <chrono>

namespace warpforge::llm::http {

struct timeouts {
  // Resolving the host, the TCP connect, the proxy's CONNECT and the TLS handshake, together [ms].
  std::chrono::milliseconds connect{10'000};
  // From the request written to the response's status line and headers all read [ms]. A model may
  // think before it answers, so this is long.
  std::chrono::milliseconds first_byte{120'000};
  // The longest silence between two pieces of the body, and the longest a write may take [ms].
  std::chrono::milliseconds idle{60'000};
  // The whole exchange, from the first step to the body's last byte [ms].
  std::chrono::milliseconds total{900'000};
};

} // namespace warpforge::llm::http
