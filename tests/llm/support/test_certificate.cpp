#include "tests/llm/support/test_certificate.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <functional>
#include <memory>
#include <stdexcept>

namespace warpforge::llm::testing {
namespace {

// The certificate is valid from this long ago, so clock skew cannot make it "not yet valid" [s].
constexpr long valid_before_now = 3600;
// ... and for this long after [s].
constexpr long valid_after_now = 24 * 3600;

using key_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using cert_ptr = std::unique_ptr<X509, decltype(&X509_free)>;
using bio_ptr = std::unique_ptr<BIO, decltype(&BIO_free)>;

void check(bool ok, const char* call) {
  if (!ok)
    throw std::runtime_error(std::string{"test certificate: "} + call + " failed");
}

void add_extension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
  check(extension != nullptr, "X509V3_EXT_conf_nid");
  const bool added = X509_add_ext(cert, extension, -1) == 1;
  X509_EXTENSION_free(extension);
  check(added, "X509_add_ext");
}

std::string pem_of(const std::function<int(BIO*)>& write) {
  bio_ptr bio{BIO_new(BIO_s_mem()), &BIO_free};
  check(bio && write(bio.get()) == 1, "PEM_write_bio");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string{data, static_cast<std::size_t>(size)};
}

std::string subject_alt_names(const std::vector<std::string>& dns_names, const std::vector<std::string>& ips) {
  std::string out;
  for (const auto& name : dns_names)
    out += (out.empty() ? "DNS:" : ",DNS:") + name;
  for (const auto& ip : ips)
    out += (out.empty() ? "IP:" : ",IP:") + ip;
  return out;
}

} // namespace

test_certificate make_self_signed_certificate(const std::vector<std::string>& dns_names,
                                              const std::vector<std::string>& ip_addresses) {
  key_ptr key{EVP_EC_gen("P-256"), &EVP_PKEY_free};
  check(key != nullptr, "EVP_EC_gen");
  cert_ptr cert{X509_new(), &X509_free};
  check(cert != nullptr, "X509_new");
  unsigned char serial[8];
  check(RAND_bytes(serial, sizeof serial) == 1, "RAND_bytes");
  serial[0] &= 0x7f; // a positive serial number
  BIGNUM* number = BN_bin2bn(serial, sizeof serial, nullptr);
  check(number != nullptr && BN_to_ASN1_INTEGER(number, X509_get_serialNumber(cert.get())) != nullptr, "serial");
  BN_free(number);
  check(X509_set_version(cert.get(), 2) == 1, "X509_set_version");
  check(X509_gmtime_adj(X509_getm_notBefore(cert.get()), -valid_before_now) != nullptr, "notBefore");
  check(X509_gmtime_adj(X509_getm_notAfter(cert.get()), valid_after_now) != nullptr, "notAfter");
  check(X509_set_pubkey(cert.get(), key.get()) == 1, "X509_set_pubkey");
  X509_NAME* name = X509_get_subject_name(cert.get());
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>("warpforge loopback test"), -1, -1, 0) == 1,
        "X509_NAME_add_entry_by_txt");
  check(X509_set_issuer_name(cert.get(), name) == 1, "X509_set_issuer_name");
  add_extension(cert.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign");
  add_extension(cert.get(), NID_subject_key_identifier, "hash");
  add_extension(cert.get(), NID_subject_alt_name, subject_alt_names(dns_names, ip_addresses));
  check(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0, "X509_sign");
  return {pem_of([&](BIO* bio) { return PEM_write_bio_X509(bio, cert.get()); }),
          pem_of([&](BIO* bio) {
            return PEM_write_bio_PrivateKey(bio, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
          })};
}

} // namespace warpforge::llm::testing
