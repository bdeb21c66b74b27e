// `warpforge host`: one process per GPU node that offers the node's GPUs to a campaign's
// coordinator (docs/hosts.md). It runs a gpu_worker per GPU under its own supervisor and one
// gateway (actors/hosts/host_gateway.hpp) that compiles what the coordinator sends with this
// node's NVRTC and content cache and hands it to the worker of that GPU. The coordinator reaches
// the gateway over CAF's network layer with TLS, both ends verified against the campaign's CA:
// `--listen` waits for it, `--coordinator` calls it back (and again whenever the link is lost).
// `--new-credential DIR` makes a campaign's credential and exits.

#include "apps/warpforge/cli/commands.hpp"

#include "actors/gpu_worker.hpp"
#include "actors/hosts/host_gateway.hpp"
#include "actors/hosts/network.hpp"
#include "actors/registry.hpp"
#include "actors/runtime.hpp"
#include "actors/supervisor.hpp"
#include "apps/warpforge/cli/gpu_fleet.hpp"
#include "apps/warpforge/cli/interrupt.hpp"
#include "foundation/logging/logging.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "pipeline/host_credential.hpp"

#include <caf/actor_system.hpp>
#include <caf/after.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/openssl/remote_actor.hpp>
#include <caf/scoped_actor.hpp>

#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace warpforge::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::chrono::milliseconds interrupt_poll{200};

std::string this_node() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0)
    return "unknown-host";
  return name;
}

// The workers of the chosen GPUs, as `warpforge run` configures them.
std::vector<actors::child_spec> worker_children(const gpu_fleet& fleet) {
  std::vector<actors::child_spec> children;
  for (int ordinal : fleet.chosen) {
    actors::gpu_worker_config worker;
    worker.device = fleet.device(ordinal);
    worker.keeper.runner.executable = fleet.runner;
    worker.keeper.runner.warm_up = gpu::warm_up_level::profiler; // a host serves campaigns, most of which profile
    worker.lock_holder = "warpforge host";
    children.push_back({actors::gpu_worker_name(ordinal), [worker](caf::actor_system& sys) {
                          return caf::actor_cast<caf::actor>(sys.spawn<caf::detached>(actors::gpu_worker, worker));
                        }});
  }
  return children;
}

// Calls the coordinator back until interrupted: joins through its door, and again after the
// link is lost (a coordinator resumed at the same address finds its hosts again).
void call_back(caf::scoped_actor& self, const actors::hosts::endpoint& at, const messages::host_actor& gateway) {
  auto log = logging::get("host");
  const auto where = at.host + ":" + std::to_string(at.port);
  std::string last_error;
  while (!interrupted()) {
    auto door = caf::openssl::remote_actor<messages::host_door_actor>(self->system(), at.host, at.port);
    if (!door) {
      if (auto text = self->system().render(door.error()); text != last_error)
        log->warn("cannot reach the coordinator at {}: {} (trying again every {} ms)", where, text,
                  actors::hosts::reconnect_interval.count());
      last_error = self->system().render(door.error());
      self->receive(caf::after(actors::hosts::reconnect_interval) >> [] {});
      continue;
    }
    last_error.clear();
    self->request(*door, std::chrono::seconds{15}, messages::host_join_atom::value,
                  caf::actor_cast<caf::actor>(gateway))
      .receive([&](bool) { log->info("joined the coordinator at {}", where); },
               [&](caf::error& e) { log->warn("the coordinator at {} did not take us: {}", where, self->system().render(e)); });
    self->monitor(*door);
    bool connected = true;
    while (connected && !interrupted())
      self->receive([&](caf::down_msg&) { connected = false; }, caf::after(interrupt_poll) >> [] {});
    if (!interrupted())
      log->warn("lost the coordinator at {}; calling back", where);
  }
}

} // namespace

exit_code host(const host_options& options) {
  if (!options.new_credential.empty()) {
    auto made = pipeline::make_credential(options.new_credential, "campaign");
    if (!made) {
      std::cerr << "warpforge host: " << made.error() << '\n';
      return exit_code::failure;
    }
    std::cout << "credential made in " << options.new_credential << " (ca.pem, member.pem, member.key; 0600): give "
              << "it to the coordinator and every host, never to anyone else\n";
    return exit_code::ok;
  }
  if (options.credential.empty() || (options.listen.empty() == options.coordinator.empty())) {
    std::cerr << "warpforge host: needs --credential DIR and one of --listen [ADDR:]PORT or --coordinator HOST:PORT\n";
    return exit_code::usage;
  }
  const bool listening = !options.listen.empty();
  auto at = actors::hosts::parse_endpoint(listening ? options.listen : options.coordinator, "127.0.0.1");
  if (!at) {
    std::cerr << "warpforge host: " << (listening ? "--listen " : "--coordinator ") << at.error() << '\n';
    return exit_code::usage;
  }
  auto credential = pipeline::read_credential(options.credential);
  if (!credential) {
    std::cerr << "warpforge host: --credential: " << credential.error() << '\n';
    return exit_code::bad_input;
  }
  if (!options.runner.empty())
    ::setenv("WARPFORGE_RUNNER", options.runner.c_str(), 1);
  auto fleet = discover_gpus(options.gpus);
  if (!fleet) {
    std::cerr << "warpforge host: --gpus: " << fleet.error() << '\n';
    return exit_code::usage;
  }
  if (!fleet->usable()) {
    std::cerr << "warpforge host: no GPU to offer: " << fleet->why_none << '\n';
    return exit_code::no_gpu;
  }
  fs::path work_dir = options.work_dir;
  if (work_dir.empty())
    work_dir = fs::temp_directory_path() / ("warpforge-host-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::create_directories(work_dir / "kernels", ec);
  if (ec) {
    std::cerr << "warpforge host: --work-dir " << work_dir.string() << ": " << ec.message() << '\n';
    return exit_code::bad_input;
  }

  // A host has no feed: its workers' events (runner started, restarted) are not published, and
  // the line saying so for each would only fill its log. Its warnings and errors still show.
  logging::get("feed")->set_level(spdlog::level::err);
  actors::system_config config;
  actors::hosts::enable_network(config, *credential);
  caf::actor_system system{config};
  caf::scoped_actor self{system};
  auto supervisor = system.spawn(actors::supervisor, config::supervision_policy{}, worker_children(*fleet),
                                 caf::actor_cast<caf::actor>(self), actors::default_stop_grace);

  actors::hosts::host_gateway_config gateway_config;
  // Its name: where it listens (a host started again there is the same host, its GPUs the same
  // coordinator ordinals), or its process when it calls back or listens on a port the OS picks.
  gateway_config.offer.host =
    this_node() + ":" + (listening && at->port != 0 ? std::to_string(at->port) : "pid" + std::to_string(::getpid()));
  for (int ordinal : fleet->chosen)
    gateway_config.offer.devices.push_back(fleet->device(ordinal));
  auto compiler = std::make_shared<gpu::cached_compiler>(gpu::compile_cache{gpu::default_cache_root()});
  gateway_config.compile = [compiler](const gpu::compile_request& r) { return compiler->compile(r); };
  gateway_config.kernel_dir = work_dir / "kernels";
  // Not supervised: the one actor the coordinator holds a handle to must stay the same actor.
  auto gateway = system.spawn(actors::hosts::host_gateway, gateway_config);

  watch_for_interrupt();
  exit_code code = exit_code::interrupted;
  if (listening) {
    auto port = caf::openssl::publish(gateway, at->port, at->host.c_str(), true);
    if (!port) {
      std::cerr << "warpforge host: cannot listen on " << options.listen << ": " << system.render(port.error()) << '\n';
      code = exit_code::failure;
    } else {
      std::cerr << "warpforge host: " << gateway_config.offer.host << " offers " << fleet->chosen.size()
                << " GPU(s) on " << at->host << ":" << *port << " (TLS, campaign credential " << options.credential
                << ")" << std::endl;
      while (!interrupted())
        self->receive(caf::after(interrupt_poll) >> [] {});
    }
  } else {
    std::cerr << "warpforge host: " << gateway_config.offer.host << " offers " << fleet->chosen.size()
              << " GPU(s) to the coordinator at " << options.coordinator << std::endl;
    call_back(self, *at, gateway);
  }
  self->send_exit(gateway, caf::exit_reason::user_shutdown);
  self->request(supervisor, std::chrono::seconds{30}, messages::stop_atom::value).receive([](bool) {}, [](caf::error&) {});
  logging::shutdown();
  return code;
}

} // namespace warpforge::cli
