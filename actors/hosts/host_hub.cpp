#include "actors/hosts/host_hub.hpp"

#include "actors/exceptions.hpp"
#include "actors/gpu_worker.hpp"
#include "actors/hosts/remote_gpu.hpp"
#include "actors/registry.hpp"
#include "actors/scheduler.hpp"
#include "foundation/logging/logging.hpp"

#include <caf/after.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/exit_reason.hpp>
#include <caf/openssl/remote_actor.hpp>
#include <caf/send.hpp>
#include <caf/spawn_options.hpp>

#include <set>

namespace warpforge::actors::hosts {

namespace {

using hub_pointer = messages::host_hub_actor::stateful_pointer<host_hub_state>;

// How long a host's gateway may take to say which GPUs it offers.
constexpr std::chrono::seconds hello_timeout{15};

// One listed host: connect (TLS), hand its gateway to the hub, wait until it is lost, connect
// again after reconnect_interval; until the hub stops (linked: its exit ends this loop).
void connector(caf::blocking_actor* self, endpoint at, messages::host_hub_actor hub) {
  auto log = logging::get("hosts");
  const auto where = at.host + ":" + std::to_string(at.port);
  std::string last_error;
  bool running = true;
  while (running) {
    auto gateway = caf::openssl::remote_actor<messages::host_actor>(self->system(), at.host, at.port);
    if (gateway) {
      last_error.clear();
      log->info("reached the host at {}", where);
      self->send(hub, messages::host_join_atom::value, caf::actor_cast<caf::actor>(*gateway));
      self->monitor(*gateway);
      bool connected = true;
      while (connected && running)
        self->receive([&](caf::down_msg&) { connected = false; }, [&](caf::exit_msg&) { running = false; },
                      [&](bool) {});
    } else if (auto text = self->system().render(gateway.error()); text != last_error) {
      log->warn("cannot reach the host at {}: {} (trying again every {} ms)", where, text, reconnect_interval.count());
      last_error = text;
    }
    if (running)
      self->receive([&](caf::exit_msg&) { running = false; }, [&](bool) {}, [&](caf::down_msg&) {},
                    caf::after(reconnect_interval) >> [] {});
  }
}

// A wait is answered once enough hosts joined, or at its deadline with those that did.
void answer_waiting(hub_pointer self) {
  auto& st = self->state;
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(st.waiting, [&](host_hub_state::waiter& w) {
    if (st.hosts() < w.hosts && now < w.deadline)
      return false;
    st.announced = true;
    w.promise.deliver(st.offer());
    return true;
  });
}

void admit(hub_pointer self, const messages::host_actor& gateway, const messages::host_offer& offer) {
  auto& st = self->state;
  auto& sys = self->system();
  ++st.joins;
  std::string ordinals;
  for (const auto& device : offer.devices) {
    const auto key = offer.host + "/" + device.uuid;
    auto it = st.ordinal_of.emplace(key, st.config.first_ordinal + static_cast<int>(st.ordinal_of.size())).first;
    const int ordinal = it->second;
    remote_gpu_config config;
    config.host = gateway;
    config.host_name = offer.host;
    config.device = device;
    config.device.ordinal = ordinal;
    config.host_ordinal = device.ordinal;
    config.ledger = st.config.ledger;
    auto name = gpu_worker_name(ordinal);
    if (auto known = st.workers.find(ordinal); known != st.workers.end()) {
      // The same host again: its GPU's actor, still registered, takes the new gateway.
      self->send(caf::actor_cast<remote_gpu_actor>(known->second), messages::host_join_atom::value,
                 caf::actor_cast<caf::actor>(gateway));
    } else {
      auto worker = sys.spawn(remote_gpu, config);
      sys.registry().put(registry_key(name), caf::actor_cast<caf::strong_actor_ptr>(worker));
      st.workers[ordinal] = caf::actor_cast<caf::actor>(worker);
    }
    st.live[ordinal] = config.device;
    st.gateway_of[ordinal] = gateway.address();
    ordinals += (ordinals.empty() ? "" : ", ") + name;
    if (st.announced)
      if (auto scheduler_handle = lookup<messages::scheduler_actor>(sys, scheduler_name))
        self->send(scheduler_handle, messages::gpu_joined{config.device});
  }
  self->monitor(gateway);
  logging::get("hosts")->info("host {} joined with {} GPU(s): {}", offer.host, offer.devices.size(), ordinals);
  answer_waiting(self);
}

} // namespace

messages::host_offer host_hub_state::offer() const {
  messages::host_offer o;
  o.host = "coordinator";
  for (const auto& [ordinal, device] : live)
    o.devices.push_back(device);
  return o;
}

std::size_t host_hub_state::hosts() const {
  std::set<caf::actor_addr> gateways;
  for (const auto& [ordinal, gateway] : gateway_of)
    gateways.insert(gateway);
  return gateways.size();
}

messages::component_status host_hub_state::status() const {
  messages::component_status s;
  s.component = "hosts";
  s.state = messages::component_state::running;
  s.detail = std::to_string(live.size()) + " remote GPU(s)";
  s.counters = {{"joins", joins}, {"losses", losses}, {"gpus", static_cast<std::int64_t>(live.size())}};
  return s;
}

messages::host_hub_actor::behavior_type host_hub(hub_pointer self, host_hub_config config) {
  keep_exception_text(self);
  self->state.config = std::move(config);
  for (const auto& at : self->state.config.addresses)
    self->spawn<caf::detached + caf::linked>(connector, at, caf::actor_cast<messages::host_hub_actor>(self));
  self->set_down_handler([self](caf::down_msg& m) {
    auto& st = self->state;
    bool any = false;
    for (auto it = st.gateway_of.begin(); it != st.gateway_of.end();) {
      if (it->second != m.source) {
        ++it;
        continue;
      }
      st.live.erase(it->first);
      it = st.gateway_of.erase(it);
      any = true;
    }
    if (any) {
      ++st.losses;
      logging::get("hosts")->warn("a host is lost ({}); its GPUs' races go to the others", self->system().render(m.reason));
    }
  });
  return {
    [self](messages::host_join_atom, caf::actor& untyped) {
      auto gateway = caf::actor_cast<messages::host_actor>(untyped);
      self->request(gateway, hello_timeout, messages::hello_atom::value)
        .then([self, gateway](messages::host_offer& offer) { admit(self, gateway, offer); },
              [self](caf::error& e) {
                logging::get("hosts")->warn("a host did not say which GPUs it offers: {}", self->system().render(e));
              });
      return true;
    },
    [self](messages::wait_atom, std::uint32_t hosts, double seconds) -> caf::typed_response_promise<messages::host_offer> {
      auto promise = self->make_response_promise<messages::host_offer>();
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(seconds));
      self->state.waiting.push_back({promise, hosts, std::chrono::steady_clock::now() + wait});
      self->delayed_send(self, wait, messages::tick_atom::value);
      answer_waiting(self);
      return promise;
    },
    [self](messages::tick_atom) { answer_waiting(self); },
    [self](messages::stop_atom) {
      for (const auto& [ordinal, worker] : self->state.workers) // lost hosts' GPUs too
        caf::anon_send(caf::actor_cast<messages::gpu_worker_actor>(worker), messages::stop_atom::value);
      self->quit(caf::exit_reason::user_shutdown);
    },
    [self](messages::status_atom) { return self->state.status(); },
  };
}

messages::host_door_actor make_door(caf::actor_system& system, messages::host_hub_actor hub) {
  return system.spawn([hub](messages::host_door_actor::pointer) -> messages::host_door_actor::behavior_type {
    return {[hub](messages::host_join_atom, caf::actor& gateway) {
      caf::anon_send(hub, messages::host_join_atom::value, std::move(gateway));
      return true;
    }};
  });
}

} // namespace warpforge::actors::hosts
