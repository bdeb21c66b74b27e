#pragma once
// An http:// or https:// URL split into what a connection needs: where to connect (host, port),
// whether to speak TLS, and what to ask for (target). Nothing else of RFC 3986 is kept: fragments
// are dropped, and userinfo is only used by proxies (Proxy-Authorization).

#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace warpforge::llm::http {

struct url {
  std::string scheme;     // "http" or "https", lower case
  std::string host;       // a name (lower case) or an IP literal; IPv6 without its brackets
  std::uint16_t port = 0; // as written, else the scheme's default (80, 443)
  std::string target;     // origin-form path and query, "/v1/messages"; "/" when the text had none
  std::string userinfo;   // "user:password" as written (still percent-encoded); empty when none

  bool tls() const;
  /// "https://api.anthropic.com", "http://127.0.0.1:8080": scheme, host, port when not the default.
  /// Never the userinfo, so it is safe in messages and logs.
  std::string origin() const;
  /// host[:port] as the Host header and CONNECT spell it; the port only when not the default.
  std::string authority() const;
  /// host:port with the port always present ("api.anthropic.com:443"), as CONNECT asks for it.
  std::string host_and_port() const;
};

/// Parses an absolute http or https URL. The error names what was wrong ("no scheme in ...").
expected<url, std::string> parse_url(std::string_view text);

/// Appends `path` to the base's path with exactly one '/' between them, e.g. the base
/// "http://127.0.0.1:8000/v1" and "/chat/completions" give ".../v1/chat/completions".
/// The base's query, if any, is dropped.
url join(const url& base, std::string_view path);

/// Whether `host` is this machine: "localhost", 127.0.0.0/8 or ::1. Such hosts are never proxied.
bool is_loopback_host(std::string_view host);

} // namespace warpforge::llm::http
