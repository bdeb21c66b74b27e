#pragma once
// Why an HTTP exchange failed, by consequence: retryable(kind) in retry.hpp says which kinds a
// retry may cure. The message names the step and the host ("connecting to api.anthropic.com:443:
// Connection refused"), never a header value, so it is safe to log and record.

#include <string>
#include <string_view>

namespace warpforge::llm::http {

enum class failure_kind {
  bad_url,            // the request cannot be sent as given (URL, method, a header with a line break)
  resolve,            // the host name did not resolve
  connect,            // TCP connect failed (refused, unreachable), to the host or to the proxy
  proxy,              // the proxy refused the tunnel (e.g. 407) or is of a kind not spoken
  tls,                // the TLS handshake failed: certificate not trusted, wrong host, no shared cipher
  timeout_connect,    // timeouts::connect ran out
  timeout_first_byte, // timeouts::first_byte ran out before the response head was complete
  timeout_idle,       // timeouts::idle ran out between two pieces of the body (or in a write)
  timeout_total,      // timeouts::total ran out
  dropped,            // the connection closed or reset before the response was complete
  protocol,           // the peer's bytes are not HTTP/1.1
};

std::string_view to_string(failure_kind kind);

struct failure {
  failure_kind kind = failure_kind::protocol;
  std::string message; // the step, the host, and the system's reason
};

} // namespace warpforge::llm::http
