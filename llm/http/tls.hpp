#pragma once
// Internal to llm/http: how a TLS client connection is set up before its handshake, and how a
// failed handshake is explained. Verification is never optional: the peer's chain must lead to a
// trusted CA (the system's, or only `ca_file`'s in tests) and name the host we asked for.

#include "foundation/expected/expected.hpp"

#include <boost/asio/ssl/context.hpp>

#include <string>
#include <string_view>

namespace warpforge::llm::http {

/// Loads the trusted CAs into `context`, and on `ssl` asks for peer verification, TLS 1.2 or
/// newer, SNI (for names, not addresses) and the host check (DNS name or IP address). The error
/// says what could not be set up, e.g. an unreadable ca_file.
expected<void, std::string> prepare_tls(boost::asio::ssl::context& context, SSL* ssl, std::string_view host,
                                        const std::string& ca_file);

/// A handshake error with the certificate check's own reason when there is one:
/// "certificate verify failed (self-signed certificate)".
std::string describe_tls_error(const std::string& error_message, SSL* ssl);

} // namespace warpforge::llm::http
