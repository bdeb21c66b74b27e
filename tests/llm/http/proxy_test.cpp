// proxy_for / find_proxy over a fake environment: which variable wins, every no_proxy form, and
// that loopback is never proxied.

#include "llm/http/proxy.hpp"

#include <gtest/gtest.h>

#include <map>

namespace warpforge::llm::http {
namespace {

env_lookup fake_env(std::map<std::string, std::string> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
    const auto found = values.find(std::string{name});
    if (found == values.end())
      return std::nullopt;
    return found->second;
  };
}

url at(const char* text) { return *parse_url(text); }

std::string proxy_host(const std::optional<url>& proxy) {
  return proxy ? proxy->host + ":" + std::to_string(proxy->port) : "direct";
}

TEST(ProxyFor, GoesDirectWhenNothingIsSet) {
  EXPECT_EQ(proxy_host(proxy_for(at("https://api.anthropic.com/"), fake_env({}))), "direct");
}

TEST(ProxyFor, PicksTheVariableOfTheTargetsSchemeLowerCaseFirst) {
  const auto env = fake_env({{"HTTPS_PROXY", "http://upper:1"}, {"https_proxy", "http://lower:2"},
                             {"HTTP_PROXY", "http://plain:3"}});
  EXPECT_EQ(proxy_host(proxy_for(at("https://api.anthropic.com/"), env)), "lower:2");
  EXPECT_EQ(proxy_host(proxy_for(at("http://models.internal/"), env)), "plain:3");
  EXPECT_EQ(proxy_host(proxy_for(at("https://x/"), fake_env({{"HTTPS_PROXY", "http://upper:1"}}))), "upper:1");
}

TEST(ProxyFor, FallsBackToAllProxyAndTreatsEmptyAsUnset) {
  const auto env = fake_env({{"https_proxy", ""}, {"ALL_PROXY", "http://all:8"}});
  EXPECT_EQ(proxy_host(proxy_for(at("https://api.openai.com/"), env)), "all:8");
}

TEST(ProxyFor, ReadsAValueWithoutSchemeAsHttp) {
  auto proxy = proxy_for(at("https://api.openai.com/"), fake_env({{"https_proxy", "proxy.corp:3128"}}));
  ASSERT_TRUE(proxy);
  EXPECT_EQ(proxy->scheme, "http");
  EXPECT_EQ(proxy_host(proxy), "proxy.corp:3128");
}

TEST(ProxyFor, NeverProxiesLoopbackEvenWithoutNoProxy) {
  const auto env = fake_env({{"http_proxy", "http://p:1"}, {"https_proxy", "http://p:1"}});
  EXPECT_EQ(proxy_host(proxy_for(at("http://127.0.0.1:8000/v1"), env)), "direct");
  EXPECT_EQ(proxy_host(proxy_for(at("http://localhost:11434/v1"), env)), "direct");
  EXPECT_EQ(proxy_host(proxy_for(at("https://[::1]:8443/"), env)), "direct");
}

TEST(ProxyFor, HonoursEveryNoProxyForm) {
  struct example {
    const char* no_proxy;
    const char* target;
    bool direct;
  };
  const example cases[] = {
      {"*", "https://api.anthropic.com/", true},
      {"anthropic.com", "https://api.anthropic.com/", true},
      {"anthropic.com", "https://anthropic.com/", true},
      {"anthropic.com", "https://notanthropic.com/", false},
      {".anthropic.com", "https://api.anthropic.com/", true},
      {".anthropic.com", "https://anthropic.com/", true},
      {"*.anthropic.com", "https://api.anthropic.com/", true},
      {"API.Anthropic.COM", "https://api.anthropic.com/", true},
      {"other.com, api.openai.com", "https://api.openai.com/", true},
      {"other.com api.openai.com", "https://api.openai.com/", true},
      {"api.openai.com:443", "https://api.openai.com/", true},
      {"api.openai.com:8443", "https://api.openai.com/", false},
      {"10.1.2.3", "http://10.1.2.3:8000/", true},
      {"10.1.2.3", "http://10.1.2.4:8000/", false},
      {"10.0.0.0/8", "http://10.200.3.4/", true},
      {"10.0.0.0/8", "http://11.0.0.1/", false},
      {"fd00::/8", "http://[fd12::5]/", true},
      {"[fd12::5]:8000", "http://[fd12::5]:8000/", true},
      {"", "https://api.anthropic.com/", false},
  };
  for (const auto& [no_proxy, target, direct] : cases) {
    const auto env = fake_env({{"https_proxy", "http://p:1"}, {"http_proxy", "http://p:1"}, {"NO_PROXY", no_proxy}});
    EXPECT_EQ(proxy_host(proxy_for(at(target), env)), direct ? "direct" : "p:1")
        << "NO_PROXY=" << no_proxy << " target " << target;
  }
}

TEST(FindProxy, NamesAnUnparsableVariableButNotItsValue) {
  const auto env = fake_env({{"https_proxy", "http://user:hunter2@:77"}});
  auto proxy = find_proxy(at("https://api.anthropic.com/"), env);
  ASSERT_FALSE(proxy);
  EXPECT_NE(proxy.error().find("https_proxy"), std::string::npos) << proxy.error();
  EXPECT_EQ(proxy.error().find("hunter2"), std::string::npos) << proxy.error();
  EXPECT_EQ(proxy_host(proxy_for(at("https://api.anthropic.com/"), env)), "direct");
}

TEST(ProxyAuthorization, IsBasicOverTheDecodedUserinfo) {
  // base64("user:p@ss") = dXNlcjpwQHNz
  EXPECT_EQ(proxy_authorization(at("http://user:p%40ss@proxy:3128")), "Basic dXNlcjpwQHNz");
}

TEST(ProcessEnvironment, ReadsTheRealEnvironment) {
  ::setenv("WARPFORGE_PROXY_TEST_VARIABLE", "value", 1);
  EXPECT_EQ(process_environment()("WARPFORGE_PROXY_TEST_VARIABLE"), "value");
  ::unsetenv("WARPFORGE_PROXY_TEST_VARIABLE");
  EXPECT_FALSE(process_environment()("WARPFORGE_PROXY_TEST_VARIABLE"));
}

} // namespace
} // namespace warpforge::llm::http
