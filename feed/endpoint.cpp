#include "feed/endpoint.hpp"

#include "foundation/vocabulary/enum_text.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstring>
#include <fstream>

namespace warpforge::feed {
namespace {

constexpr std::string_view scheme_separator = "://";
constexpr unsigned max_tcp_port = 65535;
constexpr unsigned char ipv4_loopback_first_octet = 127; // 127.0.0.0/8

unexpected<feed_error> fail(feed_errc code, std::string_view place, std::string message) {
  return unexpected{feed_error{code, std::string{place}, std::move(message)}};
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool valid_port(std::string_view port) {
  if (port == "*")
    return true;
  unsigned number = 0;
  auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), number);
  return error == std::errc{} && end == port.data() + port.size() && number <= max_tcp_port;
}

} // namespace

constexpr vocabulary::enum_word<endpoint_transport> endpoint_transport_words[] = {
    {endpoint_transport::tcp, "tcp"},
    {endpoint_transport::ipc, "ipc"},
    {endpoint_transport::inproc, "inproc"},
};
static_assert(vocabulary::covers(endpoint_transport_words, all_endpoint_transports));

std::string_view to_string(endpoint_transport transport) {
  return vocabulary::word_of(endpoint_transport_words, transport);
}

std::optional<endpoint_transport> endpoint_transport_from_string(std::string_view text) {
  return vocabulary::value_of(endpoint_transport_words, text);
}

bool is_loopback_host(std::string_view host) {
  if (iequals(host, "localhost"))
    return true;
  std::string text{host}; // inet_pton needs a terminated string
  std::array<unsigned char, sizeof(in6_addr)> address{};
  if (inet_pton(AF_INET, text.c_str(), address.data()) == 1)
    return address[0] == ipv4_loopback_first_octet;
  if (inet_pton(AF_INET6, text.c_str(), address.data()) == 1) {
    in6_addr loopback = IN6ADDR_LOOPBACK_INIT;
    return std::memcmp(address.data(), &loopback, sizeof loopback) == 0;
  }
  return false;
}

expected<endpoint_address, feed_error> parse_endpoint(std::string_view endpoint) {
  auto separator = endpoint.find(scheme_separator);
  if (separator == std::string_view::npos)
    return fail(feed_errc::bad_endpoint, "transport",
                "expected transport://address, got '" + std::string{endpoint} + "'");
  auto transport = endpoint_transport_from_string(endpoint.substr(0, separator));
  if (!transport)
    return fail(feed_errc::bad_endpoint, "transport",
                "'" + std::string{endpoint.substr(0, separator)} +
                    "' is not one of tcp, ipc, inproc");
  auto rest = endpoint.substr(separator + scheme_separator.size());

  endpoint_address address;
  address.transport = *transport;
  if (*transport != endpoint_transport::tcp) {
    if (rest.empty())
      return fail(feed_errc::bad_endpoint, "path", "empty in '" + std::string{endpoint} + "'");
    address.path = std::string{rest};
    address.local = true;
    return address;
  }

  auto colon = rest.rfind(':');
  if (colon == std::string_view::npos)
    return fail(feed_errc::bad_endpoint, "port", "missing in '" + std::string{endpoint} + "'");
  auto host = rest.substr(0, colon);
  auto port = rest.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    address.ipv6 = true;
  }
  if (host.empty())
    return fail(feed_errc::bad_endpoint, "host", "empty in '" + std::string{endpoint} + "'");
  if (!valid_port(port))
    return fail(feed_errc::bad_endpoint, "port",
                "'" + std::string{port} + "' is not a port number (0-65535) or '*'");
  if (host.find(':') != std::string_view::npos)
    address.ipv6 = true; // an IPv6 literal, with or without brackets
  address.host = std::string{host};
  address.port = std::string{port};
  address.local = is_loopback_host(host);
  return address;
}

expected<endpoint_address, feed_error> check_bind_endpoint(std::string_view endpoint,
                                                           bool allow_remote) {
  auto address = parse_endpoint(endpoint);
  if (address && !address->local && !allow_remote)
    return fail(feed_errc::remote_not_allowed, "host",
                "'" + address->host + "' is reachable from other hosts; bind to 127.0.0.1 or "
                "set allow_remote to publish beyond this host");
  return address;
}

namespace {

/// "tcp://host:port", with brackets around an IPv6 literal.
std::string tcp_text(const endpoint_address& address, std::string_view port) {
  std::string host = address.ipv6 ? "[" + address.host + "]" : address.host;
  return "tcp://" + host + ":" + std::string{port};
}

bool is_wildcard_host(std::string_view host) {
  return host == "*" || host == "0.0.0.0" || host == "::";
}

} // namespace

std::string read_endpoint_file(const std::filesystem::path& file) {
  std::ifstream in{file};
  std::string endpoint;
  in >> endpoint;
  return endpoint;
}

std::string bind_text(const endpoint_address& address) {
  if (address.transport != endpoint_transport::tcp)
    return std::string{to_string(address.transport)} + "://" + address.path;
  constexpr std::string_view localhost_address = "127.0.0.1";
  std::string host = address.host;
  bool is_name = host.find_first_not_of("0123456789.:") != std::string::npos;
  if (is_name && is_loopback_host(host))
    host = localhost_address;
  if (address.ipv6)
    host = "[" + host + "]";
  return "tcp://" + host + ":" + address.port;
}

expected<std::string, feed_error> replay_endpoint_for(std::string_view feed_endpoint) {
  constexpr std::string_view replay_suffix = ".replay";
  auto address = parse_endpoint(feed_endpoint);
  if (!address)
    return unexpected{address.error()};
  if (address->transport != endpoint_transport::tcp)
    return std::string{to_string(address->transport)} + "://" + address->path +
           std::string{replay_suffix};
  if (address->port == "*" || address->port == "0")
    return tcp_text(*address, "*");
  unsigned port = 0;
  std::from_chars(address->port.data(), address->port.data() + address->port.size(), port);
  if (port >= max_tcp_port)
    return fail(feed_errc::bad_endpoint, "port",
                "the replay endpoint takes the feed's port + 1, and " + address->port +
                    " is the last port; give the feed a lower port");
  return tcp_text(*address, std::to_string(port + 1));
}

std::string reachable_endpoint(std::string_view advertised, std::string_view connected_feed) {
  auto address = parse_endpoint(advertised);
  auto feed = parse_endpoint(connected_feed);
  if (!address || !feed || address->transport != endpoint_transport::tcp ||
      feed->transport != endpoint_transport::tcp || !is_wildcard_host(address->host))
    return std::string{advertised};
  address->host = feed->host;
  address->ipv6 = feed->ipv6;
  return tcp_text(*address, address->port);
}

} // namespace warpforge::feed
