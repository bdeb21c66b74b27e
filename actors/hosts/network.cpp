#include "actors/hosts/network.hpp"

#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/timespan.hpp>

#include <charconv>

namespace warpforge::actors::hosts {

void enable_network(caf::actor_system_config& cfg, const pipeline::credential_files& credential) {
  if (!clears_openssl_error_queue())
    return;
  cfg.load<caf::io::middleman>();
  cfg.load<caf::openssl::manager>();
  // Any of these set turns on CAF's authenticated mode: TLS with SSL_VERIFY_PEER and
  // SSL_VERIFY_FAIL_IF_NO_PEER_CERT on both ends, the peer checked against the CA file.
  cfg.openssl_certificate = credential.certificate.string();
  cfg.openssl_key = credential.key.string();
  cfg.openssl_cafile = credential.ca.string();
  cfg.set("middleman.heartbeat-interval", caf::timespan{link_heartbeat});
  cfg.set("middleman.connection-timeout", caf::timespan{link_timeout});
}

expected<endpoint, std::string> parse_endpoint(const std::string& text, const std::string& default_host) {
  endpoint e;
  auto colon = text.rfind(':');
  std::string port_text = colon == std::string::npos ? text : text.substr(colon + 1);
  e.host = colon == std::string::npos ? default_host : text.substr(0, colon);
  if (e.host.empty())
    return unexpected{"'" + text + "': no host before the ':' (expected HOST:PORT)"};
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || value > 65535)
    return unexpected{"'" + text + "': the port is not a number from 0 to 65535 (expected HOST:PORT)"};
  e.port = static_cast<std::uint16_t>(value);
  return e;
}

} // namespace warpforge::actors::hosts
