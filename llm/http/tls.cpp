#include "llm/http/tls.hpp"

#include <boost/asio/ip/address.hpp>

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

namespace warpforge::llm::http {

expected<void, std::string> prepare_tls(boost::asio::ssl::context& context, SSL* ssl, std::string_view host,
                                        const std::string& ca_file) {
  boost::system::error_code error;
  if (ca_file.empty())
    context.set_default_verify_paths(error);
  else
    context.load_verify_file(ca_file, error);
  if (error)
    return unexpected{(ca_file.empty() ? std::string{"loading the system's CA certificates"}
                                       : "loading the CA file " + ca_file) + ": " + error.message()};
  SSL_set_verify(ssl, SSL_VERIFY_PEER, nullptr);
  if (SSL_set_min_proto_version(ssl, TLS1_2_VERSION) != 1)
    return unexpected{std::string{"asking for TLS 1.2 or newer failed"}};
  const std::string name{host};
  boost::asio::ip::make_address(name, error);
  const bool is_address = !error;
  // SNI carries names only (RFC 6066); an address is checked against the certificate's IP entries.
  if (is_address) {
    if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name.c_str()) != 1)
      return unexpected{"setting the address check for " + name + " failed"};
  } else if (SSL_set_tlsext_host_name(ssl, name.c_str()) != 1 || SSL_set1_host(ssl, name.c_str()) != 1) {
    return unexpected{"setting SNI and the host check for " + name + " failed"};
  }
  return {};
}

std::string describe_tls_error(const std::string& error_message, SSL* ssl) {
  const long verdict = SSL_get_verify_result(ssl);
  if (verdict == X509_V_OK)
    return error_message;
  return error_message + " (" + X509_verify_cert_error_string(verdict) + ")";
}

} // namespace warpforge::llm::http
