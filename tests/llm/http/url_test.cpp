// parse_url, join and the url's spellings: what a provider's base URL may look like, and what is refused.

#include "llm/http/url.hpp"

#include <gtest/gtest.h>

namespace warpforge::llm::http {
namespace {

TEST(ParseUrl, SplitsAnHttpsUrlAndFillsTheDefaultPort) {
  auto u = parse_url("https://API.Anthropic.com/v1/messages?beta=true#frag");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->scheme, "https");
  EXPECT_EQ(u->host, "api.anthropic.com");
  EXPECT_EQ(u->port, 443);
  EXPECT_EQ(u->target, "/v1/messages?beta=true");
  EXPECT_TRUE(u->tls());
  EXPECT_EQ(u->origin(), "https://api.anthropic.com");
  EXPECT_EQ(u->authority(), "api.anthropic.com");
  EXPECT_EQ(u->host_and_port(), "api.anthropic.com:443");
}

TEST(ParseUrl, KeepsAnExplicitPortAndGivesSlashWhenThereIsNoPath) {
  auto u = parse_url("http://127.0.0.1:8000");
  ASSERT_TRUE(u) << u.error();
  EXPECT_FALSE(u->tls());
  EXPECT_EQ(u->port, 8000);
  EXPECT_EQ(u->target, "/");
  EXPECT_EQ(u->origin(), "http://127.0.0.1:8000");
  EXPECT_EQ(parse_url("http://h?x=1")->target, "/?x=1");
}

TEST(ParseUrl, ReadsBracketedIpv6HostsAndUserinfo) {
  auto u = parse_url("http://user:p%40ss@[::1]:3128/");
  ASSERT_TRUE(u) << u.error();
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, 3128);
  EXPECT_EQ(u->userinfo, "user:p%40ss");
  EXPECT_EQ(u->authority(), "[::1]:3128");
  EXPECT_EQ(u->origin(), "http://[::1]:3128") << "origin never carries the userinfo";
}

TEST(ParseUrl, RefusesWhatCannotBeSpokenAndSaysWhy) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "empty"},
      {"api.anthropic.com/v1", "no scheme"},
      {"ftp://host/", "scheme 'ftp'"},
      {"https:///v1", "no host"},
      {"https://host:0/", "invalid port"},
      {"https://host:65536/", "invalid port"},
      {"https://host:80a/", "invalid port"},
      {"https://host:/", "invalid port"},
      {"https://[::1/", "unclosed '['"},
      {"https://[nothex]/", "invalid IPv6"},
      {"https://ho st/", "space or control"},
  };
  for (const auto& [text, why] : cases) {
    auto u = parse_url(text);
    ASSERT_FALSE(u) << text;
    EXPECT_NE(u.error().find(why), std::string::npos) << text << " → " << u.error();
  }
}

TEST(ParseUrl, NeverRepeatsAPasswordInItsError) {
  auto u = parse_url("http://user:hunter2@proxy:99999/");
  ASSERT_FALSE(u);
  EXPECT_EQ(u.error().find("hunter2"), std::string::npos) << u.error();
  EXPECT_NE(u.error().find("proxy:99999"), std::string::npos) << u.error();
}

TEST(Join, PutsExactlyOneSlashBetweenBaseAndPath) {
  const auto base = *parse_url("http://127.0.0.1:8000/v1");
  EXPECT_EQ(join(base, "/chat/completions").target, "/v1/chat/completions");
  EXPECT_EQ(join(*parse_url("http://h/v1/"), "chat/completions").target, "/v1/chat/completions");
  EXPECT_EQ(join(*parse_url("https://api.anthropic.com"), "/v1/messages").target, "/v1/messages");
  EXPECT_EQ(join(*parse_url("http://h/v1?key=x"), "/models").target, "/v1/models");
  EXPECT_EQ(join(base, "/x").port, 8000);
}

TEST(IsLoopbackHost, KnowsLocalhostAndTheLoopbackNetworks) {
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.8.9.10"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_FALSE(is_loopback_host("10.0.0.1"));
  EXPECT_FALSE(is_loopback_host("localhost.example.com"));
  EXPECT_FALSE(is_loopback_host("api.openai.com"));
}

} // namespace
} // namespace warpforge::llm::http
