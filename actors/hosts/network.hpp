#pragma once
// The network half of a node that talks to hosts (docs/hosts.md): CAF's middleman (libcaf_io)
// with libcaf_openssl, configured with the campaign's credential so that both ends of every
// connection present its member certificate and verify the peer's against the campaign's CA (a
// peer without one is refused in the TLS handshake), and CAF's own heartbeat so a silent link is
// closed. Applied to the actor_system_config before the system starts (runtime_options::configure).
//
//   actors::system_config cfg;
//   actors::hosts::enable_network(cfg, *pipeline::read_credential(dir));
//   caf::actor_system sys{cfg};
//   caf::openssl::publish(gateway, port, "127.0.0.1");   // or caf::openssl::remote_actor(...)

#include "pipeline/host_credential.hpp"

#include <caf/actor_system_config.hpp>

#include <chrono>
#include <cstdint>
#include <string>

namespace warpforge::actors::hosts {

/// How often each side of a link asks the other whether it is there (the coordinator's heartbeat
/// to each host), and how long an answer may take before the host counts as lost. With CAF's
/// node-down (a closed connection: a killed process), a lost host is noticed within
/// heartbeat_interval + heartbeat_timeout (docs/hosts.md, "When a host is lost").
inline constexpr std::chrono::milliseconds heartbeat_interval{1000};
inline constexpr std::chrono::milliseconds heartbeat_timeout{3000};
/// CAF's own link heartbeat (BASP) and the silence after which it closes the connection.
inline constexpr std::chrono::milliseconds link_heartbeat{1000};
inline constexpr std::chrono::milliseconds link_timeout{5000};
/// How often a coordinator tries again to reach a listed host it lost (or never reached), and a
/// host to reach its coordinator.
inline constexpr std::chrono::milliseconds reconnect_interval{2000};

/// True: this executable clears OpenSSL's error queue before CAF's TLS calls (openssl_error_queue.cpp
/// says why); enable_network calls it, so the linker keeps those definitions.
bool clears_openssl_error_queue();

/// Loads the middleman and the OpenSSL manager into `cfg` with `credential` (mutual verification).
void enable_network(caf::actor_system_config& cfg, const pipeline::credential_files& credential);

/// "HOST:PORT" or "PORT" (then `default_host`) split; the error says what is wrong with `text`.
struct endpoint {
  std::string host;
  std::uint16_t port = 0;
};
expected<endpoint, std::string> parse_endpoint(const std::string& text, const std::string& default_host);

} // namespace warpforge::actors::hosts
