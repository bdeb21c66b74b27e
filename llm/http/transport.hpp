#pragma once
// One HTTP/1.1 exchange over a fresh connection: plain TCP or TLS (OpenSSL, the peer's certificate
// verified against the system's CAs, SNI, host-name check), direct or through an http:// proxy
// (CONNECT for https targets, absolute-form for http ones). The response body is streamed to the
// caller as it arrives, de-chunked, so an SSE stream can be parsed while the model writes it.

#include "foundation/expected/expected.hpp"
#include "llm/http/failure.hpp"
#include "llm/http/timeouts.hpp"
#include "llm/http/url.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm::http {

struct header {
  std::string name;
  std::string value;
};

struct request {
  std::string method = "POST";
  url target;
  std::vector<header> headers; // Host, Content-Length and User-Agent are added unless given here
  std::string body;
  timeouts limits;
  std::optional<url> proxy;    // from proxy_for(target, ...); nullopt: direct
  std::string ca_file;         // a PEM file of the only CAs trusted (tests); empty: the system's
};

struct response_head {
  unsigned status = 0;         // 200, 429, ...
  std::vector<header> headers; // in the order received
  /// The first header of that name, compared case-insensitively.
  std::optional<std::string> find(std::string_view name) const;
};

/// Sends one request; calls on_head once the status line and headers are in, then on_body with
/// each piece of the (de-chunked) body as it arrives; returns the head when the body is complete,
/// or the failure (a connection lost after on_head is `dropped`). Blocking; safe to call from many
/// threads at once (each call has its own io_context). Exceptions thrown by the callbacks pass through.
expected<response_head, failure> send(const request& r,
                                      const std::function<void(const response_head&)>& on_head,
                                      const std::function<void(std::string_view)>& on_body);

} // namespace warpforge::llm::http
