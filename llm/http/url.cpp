#include "llm/http/url.hpp"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace warpforge::llm::http {
namespace {

constexpr std::uint16_t default_http_port = 80;
constexpr std::uint16_t default_https_port = 443;

std::string lower(std::string_view text) {
  std::string out{text};
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// The URL as it may appear in a message: a password in its userinfo replaced by "***".
std::string redacted(std::string_view text) {
  const auto separator = text.find("://");
  const auto start = separator == std::string_view::npos ? 0 : separator + 3;
  const auto end = std::min(text.find_first_of("/?#", start), text.size());
  const auto at = text.substr(0, end).rfind('@');
  if (at == std::string_view::npos || at < start)
    return std::string{text};
  return std::string{text.substr(0, start)} + "***" + std::string{text.substr(at)};
}

unexpected<std::string> bad(std::string_view why, std::string_view text) {
  return unexpected{std::string{why} + " in URL '" + redacted(text) + "'"};
}

std::uint16_t default_port(std::string_view scheme) {
  return scheme == "https" ? default_https_port : default_http_port;
}

bool has_forbidden_character(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](unsigned char c) { return c <= 0x20 || c == 0x7f; });
}

/// Splits "host[:port]" or "[v6][:port]" into the url's host and port.
expected<void, std::string> read_host_and_port(std::string_view hostport, std::string_view text,
                                               url& out) {
  std::string_view host = hostport;
  std::string_view port_text;
  if (hostport.starts_with('[')) {
    const auto close = hostport.find(']');
    if (close == std::string_view::npos)
      return bad("an unclosed '[' around an IPv6 host", text);
    host = hostport.substr(1, close - 1);
    const auto rest = hostport.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':'))
      return bad("characters after the IPv6 host's ']'", text);
    port_text = rest.empty() ? rest : rest.substr(1);
    boost::system::error_code error;
    boost::asio::ip::make_address_v6(std::string{host}, error);
    if (error)
      return bad("an invalid IPv6 host", text);
  } else if (const auto colon = hostport.rfind(':'); colon != std::string_view::npos) {
    host = hostport.substr(0, colon);
    port_text = hostport.substr(colon + 1);
  }
  if (host.empty())
    return bad("no host", text);
  out.host = lower(host);
  out.port = default_port(out.scheme);
  if (hostport.ends_with(':') || !port_text.empty()) {
    unsigned port = 0;
    const auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (port_text.empty() || error != std::errc{} || end != port_text.data() + port_text.size() ||
        port == 0 || port > 65535)
      return bad("an invalid port (1 to 65535)", text);
    out.port = static_cast<std::uint16_t>(port);
  }
  return {};
}

} // namespace

bool url::tls() const { return scheme == "https"; }

std::string url::authority() const {
  const bool v6 = host.find(':') != std::string::npos;
  std::string out = v6 ? "[" + host + "]" : host;
  if (port != default_port(scheme))
    out += ":" + std::to_string(port);
  return out;
}

std::string url::host_and_port() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string url::origin() const { return scheme + "://" + authority(); }

expected<url, std::string> parse_url(std::string_view text) {
  if (text.empty())
    return unexpected{std::string{"an empty URL"}};
  if (has_forbidden_character(text))
    return bad("a space or control character", text);
  const auto separator = text.find("://");
  if (separator == std::string_view::npos)
    return bad("no scheme (expected http:// or https://)", text);
  url out;
  out.scheme = lower(text.substr(0, separator));
  if (out.scheme != "http" && out.scheme != "https")
    return bad("the scheme '" + out.scheme + "' (only http and https are spoken)", text);
  auto rest = text.substr(separator + 3);
  rest = rest.substr(0, rest.find('#'));
  const auto path_start = rest.find_first_of("/?");
  auto authority = rest.substr(0, path_start);
  out.target = path_start == std::string_view::npos ? "/" : std::string{rest.substr(path_start)};
  if (out.target.starts_with('?'))
    out.target.insert(0, "/");
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    out.userinfo = std::string{authority.substr(0, at)};
    authority = authority.substr(at + 1);
  }
  if (auto read = read_host_and_port(authority, text, out); !read)
    return unexpected{std::move(read.error())};
  return out;
}

url join(const url& base, std::string_view path) {
  url out = base;
  std::string_view prefix = base.target;
  prefix = prefix.substr(0, prefix.find('?'));
  while (prefix.ends_with('/'))
    prefix.remove_suffix(1);
  while (path.starts_with('/'))
    path.remove_prefix(1);
  out.target = std::string{prefix} + "/" + std::string{path};
  return out;
}

bool is_loopback_host(std::string_view host) {
  if (host == "localhost" || host.ends_with(".localhost"))
    return true;
  boost::system::error_code error;
  const auto address = boost::asio::ip::make_address(std::string{host}, error);
  return !error && address.is_loopback();
}

} // namespace warpforge::llm::http
