#include "apps/warpforge/cli/remote_hosts.hpp"

#include "actors/hosts/host_hub.hpp"
#include "config/hosts_spec.hpp"
#include "foundation/logging/logging.hpp"

#include <caf/openssl/publish.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

namespace warpforge::cli {

expected<remote_hosts, std::string> remote_hosts::prepare(const hosts_request& request) {
  remote_hosts hosts;
  hosts.request_ = request;
  if (request.credential.empty())
    return unexpected{std::string{"hosts need the campaign's credential: --credential DIR (made by `warpforge host "
                                  "--new-credential DIR`; docs/hosts.md)"}};
  auto credential = pipeline::read_credential(request.credential);
  if (!credential)
    return unexpected{"the hosts' credential: " + credential.error()};
  hosts.credential_ = *credential;
  for (const auto& text : request.addresses) {
    auto at = config::parse_host_address(text); // the spec's reading: "node1:4242", "[fd00::7]:4242"
    if (!at)
      return unexpected{"a host's address: '" + text + "': " + at.error()};
    hosts.addresses_.push_back({at->host, at->port});
  }
  if (!request.listen.empty()) {
    auto at = actors::hosts::parse_endpoint(request.listen, "127.0.0.1");
    if (!at)
      return unexpected{"where hosts call back: " + at.error()};
    hosts.door_at_ = *at;
  }
  if (hosts.addresses_.empty() && !hosts.door_at_)
    return unexpected{std::string{"no host: list their addresses (--host, [hosts] addresses), or say where they call "
                                  "back (--hosts-listen)"}};
  return hosts;
}

void remote_hosts::configure(actors::pipeline_options& pipeline) const {
  pipeline.configure = [credential = credential_](caf::actor_system_config& cfg) {
    actors::hosts::enable_network(cfg, credential);
  };
  pipeline.compile = ledger_->recording(std::move(pipeline.compile));
}

expected<std::vector<gpu::device_info>, std::string> remote_hosts::start(caf::actor_system& system) {
  actors::hosts::host_hub_config config;
  config.addresses = addresses_;
  config.ledger = ledger_;
  hub_ = system.spawn(actors::hosts::host_hub, config);
  if (door_at_) {
    door_ = actors::hosts::make_door(system, hub_);
    auto port = caf::openssl::publish(door_, door_at_->port, door_at_->host.c_str(), true);
    if (!port)
      return unexpected{"hosts cannot call back on " + door_at_->host + ":" + std::to_string(door_at_->port) + ": " +
                        system.render(port.error())};
    logging::get("hosts")->info("hosts call back on {}:{}", door_at_->host, *port);
  }
  // Every listed host; hosts that call back: at least one.
  const auto hosts = static_cast<std::uint32_t>(std::max<std::size_t>(1, addresses_.size()));
  caf::scoped_actor self{system};
  std::vector<gpu::device_info> gpus;
  std::string problem;
  self->request(hub_, std::chrono::duration_cast<caf::timespan>(std::chrono::duration<double>(request_.wait_s + 10)),
                messages::wait_atom::value, hosts, request_.wait_s)
    .receive([&](messages::host_offer& offer) { gpus = std::move(offer.devices); },
             [&](caf::error& e) { problem = system.render(e); });
  if (!problem.empty())
    return unexpected{"waiting for the hosts: " + problem};
  if (gpus.empty())
    return unexpected{"no host offered a GPU within " + std::to_string(static_cast<int>(request_.wait_s)) +
                      " s (is `warpforge host` running with the same credential? see the log's \"hosts\" lines)"};
  return gpus;
}

void remote_hosts::stop() {
  if (door_)
    caf::anon_send_exit(door_, caf::exit_reason::user_shutdown);
  if (hub_)
    caf::anon_send(hub_, messages::stop_atom::value);
  door_ = nullptr;
  hub_ = nullptr;
}

} // namespace warpforge::cli
