#include "llm/http/proxy.hpp"

#include "foundation/logging/logging.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/network_v4.hpp>
#include <boost/asio/ip/network_v6.hpp>

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace warpforge::llm::http {
namespace {

namespace ip = boost::asio::ip;

std::optional<std::string> first_set(const env_lookup& env, std::initializer_list<std::string_view> names,
                                     std::string_view& found_name) {
  for (const auto name : names) {
    auto value = env(name);
    if (value && !value->empty()) {
      found_name = name;
      return value;
    }
  }
  return std::nullopt;
}

std::string lower(std::string_view text) {
  std::string out{text};
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// Whether `host` lies in the network `entry` ("10.0.0.0/8"); false when entry is no network.
bool in_network(const std::string& host, const std::string& entry) {
  boost::system::error_code error;
  const auto address = ip::make_address(host, error);
  if (error)
    return false;
  if (address.is_v4()) {
    const auto network = ip::make_network_v4(entry, error);
    return !error && ip::network_v4{address.to_v4(), network.prefix_length()}.canonical() ==
                         network.canonical();
  }
  const auto network = ip::make_network_v6(entry, error);
  return !error && ip::network_v6{address.to_v6(), network.prefix_length()}.canonical() ==
                       network.canonical();
}

/// Splits "host:port" / "[v6]:port" off an entry; the port is nullopt when the entry has none.
std::pair<std::string, std::optional<std::uint16_t>> split_port(const std::string& entry) {
  const auto colon = entry.rfind(':');
  const bool bracketed = entry.starts_with('[');
  const bool bare_v6 = !bracketed && std::count(entry.begin(), entry.end(), ':') > 1;
  if (colon == std::string::npos || bare_v6 || (bracketed && colon < entry.find(']')))
    return {bracketed ? entry.substr(1, entry.find(']') - 1) : entry, std::nullopt};
  unsigned port = 0;
  const auto digits = std::string_view{entry}.substr(colon + 1);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  const std::string host = bracketed ? entry.substr(1, entry.find(']') - 1) : entry.substr(0, colon);
  if (error != std::errc{} || end != digits.data() + digits.size() || port == 0 || port > 65535)
    return {host, std::uint16_t{0}}; // a port that matches nothing
  return {host, static_cast<std::uint16_t>(port)};
}

bool entry_matches(std::string entry, const url& target) {
  if (entry == "*")
    return true;
  if (entry.find('/') != std::string::npos)
    return in_network(target.host, entry);
  auto [host, port] = split_port(entry);
  if (port && *port != target.port)
    return false;
  if (host.starts_with("*."))
    host.erase(0, 1);
  if (host.starts_with('.'))
    host.erase(0, 1);
  if (host.empty())
    return false;
  return target.host == host ||
         (target.host.size() > host.size() && target.host.ends_with("." + host));
}

/// "a%40b" → "a@b": a URL's userinfo may escape ':' '@' and others (RFC 3986 §2.1).
std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    unsigned value = 0;
    if (text[i] == '%' && i + 2 < text.size() &&
        std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16).ptr == text.data() + i + 3) {
      out += static_cast<char>(value);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

} // namespace

bool bypasses_proxy(const url& target, const env_lookup& env) {
  if (is_loopback_host(target.host))
    return true;
  std::string_view name;
  const auto list = first_set(env, {"no_proxy", "NO_PROXY"}, name);
  if (!list)
    return false;
  const std::string entries = lower(*list);
  std::size_t start = 0;
  while (start < entries.size()) {
    const auto end = std::min(entries.find_first_of(", \t", start), entries.size());
    if (end > start && entry_matches(entries.substr(start, end - start), target))
      return true;
    start = end + 1;
  }
  return false;
}

expected<std::optional<url>, std::string> find_proxy(const url& target, const env_lookup& env) {
  if (bypasses_proxy(target, env))
    return std::optional<url>{};
  std::string_view name;
  auto value = target.tls() ? first_set(env, {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"}, name)
                            : first_set(env, {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"}, name);
  if (!value)
    return std::optional<url>{};
  if (value->find("://") == std::string::npos)
    value->insert(0, "http://");
  auto proxy = parse_url(*value);
  if (!proxy)
    return unexpected{"the proxy variable " + std::string{name} +
                      " is not an http:// or https:// URL with a host"};
  return std::optional<url>{std::move(*proxy)};
}

std::optional<url> proxy_for(const url& target, const env_lookup& env) {
  auto proxy = find_proxy(target, env);
  if (proxy)
    return *proxy;
  logging::get("llm.http")->warn("{}; going direct", proxy.error());
  return std::nullopt;
}

std::string proxy_authorization(const url& proxy) {
  const std::string credentials = percent_decoded(proxy.userinfo);
  std::string encoded(4 * ((credentials.size() + 2) / 3) + 1, '\0');
  const int length = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                                     reinterpret_cast<const unsigned char*>(credentials.data()),
                                     static_cast<int>(credentials.size()));
  encoded.resize(static_cast<std::size_t>(length));
  return "Basic " + encoded;
}

env_lookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string{name}.c_str());
    if (value == nullptr)
      return std::nullopt;
    return std::string{value};
  };
}

} // namespace warpforge::llm::http
