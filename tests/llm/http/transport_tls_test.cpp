// TLS verification against a loopback TLS server with a certificate made in the test: refused
// without the test CA, accepted with it, refused for the wrong host, SNI and names work.

#include "llm/http/transport.hpp"
#include "tests/llm/http/exchange.hpp"
#include "tests/llm/support/loopback_server.hpp"
#include "tests/llm/support/test_certificate.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace warpforge::llm::http {
namespace {

using testing::connection;
using testing::loopback_server;
using testing::make_self_signed_certificate;
using testing::test_certificate;

/// A folder of its own for one test's files, removed afterwards.
struct temp_folder {
  std::filesystem::path path;
  temp_folder() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = std::filesystem::temp_directory_path() /
           ("warpforge-tls-" + std::to_string(::getpid()) + "-" + info->name());
    std::filesystem::create_directories(path);
  }
  ~temp_folder() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream{path / name} << text;
    return (path / name).string();
  }
};

testing::loopback_options tls_with(const test_certificate& certificate) {
  return {certificate.certificate_pem, certificate.private_key_pem};
}

void answer_ok(connection& c) { c.respond(200, R"({"ok":true})"); }

TEST(SendTls, RefusesASelfSignedCertificateWithoutTheTestCa) {
  const auto certificate = make_self_signed_certificate({"localhost"}, {"127.0.0.1"});
  loopback_server server{answer_ok, tls_with(certificate)};
  ASSERT_EQ(server.base_url().substr(0, 8), "https://");
  const auto got = send_collecting(short_request(server.base_url(), "/v1/messages"));
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::tls) << got.message();
  EXPECT_NE(got.message().find("self-signed"), std::string::npos) << got.message();
  EXPECT_EQ(server.request_count(), 0u) << "nothing was sent over an unverified connection";
}

TEST(SendTls, AcceptsTheServerWhenTheTestCaIsTrusted) {
  const auto certificate = make_self_signed_certificate({"localhost"}, {"127.0.0.1"});
  temp_folder folder;
  loopback_server server{answer_ok, tls_with(certificate)};
  auto r = short_request(server.base_url(), "/v1/messages");
  r.ca_file = folder.write("ca.pem", certificate.certificate_pem);
  const auto got = send_collecting(r);
  ASSERT_TRUE(got.result) << got.message();
  EXPECT_EQ(got.body(), R"({"ok":true})");
  ASSERT_EQ(server.request_count(), 1u);
  EXPECT_EQ(server.requests()[0].body, r.body);
}

TEST(SendTls, ChecksTheNameAndSendsSniForAHostName) {
  const auto certificate = make_self_signed_certificate({"localhost"}, {});
  temp_folder folder;
  loopback_server server{answer_ok, tls_with(certificate)};
  auto r = short_request("https://localhost:" + std::to_string(server.port()), "/");
  r.ca_file = folder.write("ca.pem", certificate.certificate_pem);
  const auto got = send_collecting(r);
  ASSERT_TRUE(got.result) << got.message();
  EXPECT_EQ(server.requests()[0].header("Host"), "localhost:" + std::to_string(server.port()));
}

TEST(SendTls, RefusesATrustedCertificateThatNamesAnotherHost) {
  const auto certificate = make_self_signed_certificate({"api.example.test"}, {"10.9.8.7"});
  temp_folder folder;
  loopback_server server{answer_ok, tls_with(certificate)};
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    auto r = short_request("https://" + host + ":" + std::to_string(server.port()), "/");
    r.ca_file = folder.write("ca.pem", certificate.certificate_pem);
    const auto got = send_collecting(r);
    ASSERT_FALSE(got.result) << host;
    EXPECT_EQ(got.kind(), failure_kind::tls) << got.message();
    EXPECT_NE(got.message().find("mismatch"), std::string::npos) << got.message();
  }
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(SendTls, NamesACaFileThatCannotBeRead) {
  const auto certificate = make_self_signed_certificate({}, {"127.0.0.1"});
  loopback_server server{answer_ok, tls_with(certificate)};
  auto r = short_request(server.base_url(), "/");
  r.ca_file = "/nonexistent/warpforge-ca.pem";
  const auto got = send_collecting(r);
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::tls);
  EXPECT_NE(got.message().find("/nonexistent/warpforge-ca.pem"), std::string::npos) << got.message();
}

} // namespace
} // namespace warpforge::llm::http
