#pragma once
// Certificates made on the spot for TLS tests (OpenSSL's API, no `openssl` command, no files
// unless the test writes them): a self-signed P-256 certificate valid from an hour ago for a day.

#include <string>
#include <vector>

namespace warpforge::llm::testing {

struct test_certificate {
  std::string certificate_pem; // the certificate; as a ca_file it is also its own trust anchor
  std::string private_key_pem; // its key (PKCS#8 PEM)
};

/// A self-signed certificate whose subjectAltName lists `dns_names` and `ip_addresses`.
/// Throws std::runtime_error naming the OpenSSL call that failed (a broken test environment).
test_certificate make_self_signed_certificate(const std::vector<std::string>& dns_names,
                                              const std::vector<std::string>& ip_addresses);

} // namespace warpforge::llm::testing
