// Requests through the loopback proxy stub: plain http in absolute-form, https through a CONNECT
// tunnel to a loopback TLS server, a proxy that refuses, and a kind of proxy not spoken.

#include "llm/http/proxy.hpp"
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

TEST(SendThroughProxy, RelaysPlainHttpInAbsoluteFormWithProxyCredentials) {
  loopback_server proxy{[](connection& c) { c.respond(200, R"({"via":"proxy"})"); }};
  auto r = short_request("http://models.internal:8000/v1", "/chat/completions");
  r.proxy = *parse_url("http://alice:s%3Acret@127.0.0.1:" + std::to_string(proxy.port()));
  const auto got = send_collecting(r);
  ASSERT_TRUE(got.result) << got.message();
  EXPECT_EQ(got.body(), R"({"via":"proxy"})");
  const auto seen = proxy.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].target, "http://models.internal:8000/v1/chat/completions");
  EXPECT_EQ(seen[0].header("Host"), "models.internal:8000");
  EXPECT_EQ(seen[0].header("Proxy-Authorization"), "Basic YWxpY2U6czpjcmV0") << "base64 of alice:s:cret";
  EXPECT_EQ(seen[0].body, r.body);
}

TEST(SendThroughProxy, TunnelsHttpsWithConnectAndVerifiesTheFarEnd) {
  const auto certificate = testing::make_self_signed_certificate({}, {"127.0.0.1"});
  loopback_server origin{[](connection& c) { c.respond(200, R"({"tunnelled":true})"); },
                         {certificate.certificate_pem, certificate.private_key_pem}};
  loopback_server proxy{[&](connection& c) { c.tunnel_to(origin.port()); }};
  const auto ca = std::filesystem::temp_directory_path() / ("warpforge-proxy-ca-" + std::to_string(::getpid()) + ".pem");
  std::ofstream{ca} << certificate.certificate_pem;
  auto r = short_request(origin.base_url(), "/v1/messages");
  r.proxy = *parse_url("http://127.0.0.1:" + std::to_string(proxy.port()));
  r.ca_file = ca.string();
  const auto got = send_collecting(r);
  std::filesystem::remove(ca);
  ASSERT_TRUE(got.result) << got.message();
  EXPECT_EQ(got.body(), R"({"tunnelled":true})");
  const auto asked = proxy.requests();
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].method, "CONNECT");
  EXPECT_EQ(asked[0].target, "127.0.0.1:" + std::to_string(origin.port()));
  EXPECT_FALSE(asked[0].header("Proxy-Authorization")) << "no credentials in the proxy URL, none sent";
  ASSERT_EQ(origin.request_count(), 1u);
  EXPECT_EQ(origin.requests()[0].target, "/v1/messages") << "inside the tunnel the target is origin-form";
}

TEST(SendThroughProxy, ReportsAProxyThatRefusesTheTunnelWithoutItsPassword) {
  loopback_server proxy{[](connection& c) {
    c.respond(407, "", {{"Proxy-Authenticate", "Basic realm=\"corp\""}}, "");
  }};
  auto r = short_request("https://api.anthropic.com", "/v1/messages");
  r.proxy = *parse_url("http://bob:hunter2@127.0.0.1:" + std::to_string(proxy.port()));
  const auto got = send_collecting(r);
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::proxy) << got.message();
  EXPECT_NE(got.message().find("407"), std::string::npos) << got.message();
  EXPECT_NE(got.message().find("CONNECT api.anthropic.com:443"), std::string::npos) << got.message();
  EXPECT_EQ(got.message().find("hunter2"), std::string::npos);
  ASSERT_EQ(proxy.request_count(), 1u);
  EXPECT_EQ(proxy.requests()[0].header("Proxy-Authorization"), proxy_authorization(*r.proxy));
}

TEST(SendThroughProxy, RefusesAnHttpsProxyUrlWithoutConnecting) {
  auto r = short_request("https://api.anthropic.com", "/v1/messages");
  r.proxy = *parse_url("https://127.0.0.1:1");
  const auto got = send_collecting(r);
  ASSERT_FALSE(got.result);
  EXPECT_EQ(got.kind(), failure_kind::proxy) << got.message();
}

TEST(SendThroughProxy, UsesTheProxyThatProxyForChose) {
  loopback_server proxy{[](connection& c) { c.respond(200, "{}"); }};
  const auto env = [&](std::string_view name) -> std::optional<std::string> {
    if (name == "http_proxy")
      return "127.0.0.1:" + std::to_string(proxy.port());
    return std::nullopt;
  };
  auto r = short_request("http://models.internal/v1", "/models");
  r.proxy = proxy_for(r.target, env);
  ASSERT_TRUE(r.proxy);
  ASSERT_TRUE(send_collecting(r).result);
  EXPECT_EQ(proxy.requests().at(0).target, "http://models.internal/v1/models");
}

} // namespace
} // namespace warpforge::llm::http
