#include "feed/dashboard/request_check.hpp"

#include "feed/endpoint.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace warpforge::dashboard {
namespace {

// The port a Host without one means: HTTP's.
constexpr std::uint16_t default_http_port = 80;
constexpr std::string_view origin_scheme = "http://";

std::string lower(std::string_view text) {
  std::string out{text};
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// An address in one spelling: IPv4-mapped IPv6 (a dual-stack socket's view of 127.0.0.1) as
// IPv4; nullopt when `text` is not an IP literal.
std::optional<boost::asio::ip::address> address_of(std::string_view text) {
  boost::system::error_code invalid;
  auto address = boost::asio::ip::make_address(std::string{text}, invalid);
  if (invalid)
    return std::nullopt;
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    return boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, address.to_v6());
  return address;
}

struct host_and_port {
  std::string host; // lower case, IPv6 without brackets
  std::uint16_t port = default_http_port;
};

// "host", "host:port", "[v6]", "[v6]:port"; nullopt when malformed.
std::optional<host_and_port> split_authority(std::string_view text) {
  host_and_port out;
  std::string_view port_text;
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos)
      return std::nullopt;
    out.host = lower(text.substr(1, close - 1));
    const auto rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':')
        return std::nullopt;
      port_text = rest.substr(1);
    }
  } else {
    const auto colon = text.find(':');
    out.host = lower(text.substr(0, colon));
    if (colon != std::string_view::npos)
      port_text = text.substr(colon + 1);
  }
  if (out.host.empty())
    return std::nullopt;
  if (!port_text.empty() || text.ends_with(':')) {
    unsigned port = 0;
    const auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (error != std::errc{} || end != port_text.data() + port_text.size() || port > 65535)
      return std::nullopt;
    out.port = static_cast<std::uint16_t>(port);
  }
  return out;
}

} // namespace

constexpr vocabulary::enum_word<request_verdict> request_verdict_words[] = {
    {request_verdict::allowed, "allowed"},
    {request_verdict::missing_host, "missing_host"},
    {request_verdict::foreign_host, "foreign_host"},
    {request_verdict::foreign_origin, "foreign_origin"},
};
static_assert(vocabulary::covers(request_verdict_words, all_request_verdicts));

std::string_view to_string(request_verdict verdict) { return vocabulary::word_of(request_verdict_words, verdict); }

std::optional<request_verdict> request_verdict_from_string(std::string_view text) {
  return vocabulary::value_of(request_verdict_words, text);
}

bool names_this_dashboard(std::string_view host_header, const served_address& served) {
  const auto given = split_authority(host_header);
  if (!given || given->port != served.port)
    return false;
  const auto local = address_of(served.address);
  if (!local)
    return false;
  if (local->is_loopback() && (given->host == "localhost" || feed::is_loopback_host(given->host)))
    return true;
  const auto named = address_of(given->host);
  return named && *named == *local;
}

request_verdict check_request(std::optional<std::string_view> host, std::optional<std::string_view> origin,
                              const served_address& served) {
  if (!host || host->empty())
    return request_verdict::missing_host;
  if (!names_this_dashboard(*host, served))
    return request_verdict::foreign_host;
  if (origin) {
    const std::string text = lower(*origin);
    if (!std::string_view{text}.starts_with(origin_scheme) ||
        !names_this_dashboard(std::string_view{text}.substr(origin_scheme.size()), served))
      return request_verdict::foreign_origin;
  }
  return request_verdict::allowed;
}

} // namespace warpforge::dashboard
