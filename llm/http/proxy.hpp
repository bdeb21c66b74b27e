#pragma once
// Which proxy, if any, a request goes through, read from the usual environment variables:
//   https://... targets: https_proxy, HTTPS_PROXY, then all_proxy, ALL_PROXY
//   http://...  targets: http_proxy, HTTP_PROXY, then all_proxy, ALL_PROXY
// (lower case wins when both are set, as with curl and wget; an empty value counts as unset).
// A value without a scheme ("proxy.corp:3128") means http://. no_proxy / NO_PROXY lists hosts
// that go direct, separated by commas or spaces:
//   *                  every host
//   example.com        example.com and its subdomains (".example.com" and "*.example.com" too)
//   10.0.0.7, ::1      that address;   10.0.0.0/8, fd00::/8   that network
//   host:port          that host on that port only
// Loopback targets (localhost, 127.0.0.0/8, ::1) are never proxied: a local model server must
// not be sent to a corporate proxy. The environment is passed in as a lookup so tests need no setenv.

#include "foundation/expected/expected.hpp"
#include "llm/http/url.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::llm::http {

/// Reads one environment variable; nullopt when it is not set.
using env_lookup = std::function<std::optional<std::string>(std::string_view name)>;

/// The proxy for `target`, or nullopt to go direct. An unparsable proxy variable is an error that
/// names the variable (never its value, which may hold a password).
expected<std::optional<url>, std::string> find_proxy(const url& target, const env_lookup& env);

/// find_proxy, with an unparsable variable logged (by name) and treated as unset.
std::optional<url> proxy_for(const url& target, const env_lookup& env);

/// Whether no_proxy / NO_PROXY (or loopback) sends `target` direct.
bool bypasses_proxy(const url& target, const env_lookup& env);

/// The Proxy-Authorization value for a proxy URL's userinfo ("user:pass", percent-encoded as in
/// the URL): "Basic " + base64 of the decoded "user:pass".
std::string proxy_authorization(const url& proxy);

/// The lookup over this process's environment (getenv).
env_lookup process_environment();

} // namespace warpforge::llm::http
