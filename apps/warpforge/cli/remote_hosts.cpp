#include "apps/warpforge/cli/remote_hosts.hpp"

#include "actors/hosts/host_hub.hpp"
#include "config/hosts_spec.hpp"
#include "pipeline/hosts/slurm_hosts.hpp"
#include "foundation/logging/logging.hpp"

#include <caf/openssl/publish.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <algorithm>
#include <unistd.h>

namespace warpforge::cli {

expected<remote_hosts, std::string> remote_hosts::prepare(const hosts_request& request) {
  remote_hosts hosts;
  hosts.request_ = request;
  if (request.slurm && request.credential.empty()) {
    // Made for this run, where only this process reads it; start() copies it into the run
    // directory for the nodes (which must not see this temporary folder).
    const auto dir = std::filesystem::temp_directory_path() / ("warpforge-credential-" + std::to_string(::getpid()));
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    hosts.made_credential_ = std::shared_ptr<const std::filesystem::path>(
      new std::filesystem::path{dir}, [](const std::filesystem::path* p) {
        std::error_code ignored;
        std::filesystem::remove_all(*p, ignored);
        delete p;
      });
    auto made = pipeline::make_credential(dir, request.campaign);
    if (!made)
      return unexpected{"the hosts' credential: " + made.error()};
    hosts.request_.credential = dir.string();
  }
  if (hosts.request_.credential.empty())
    return unexpected{std::string{"hosts need the campaign's credential: --credential DIR (made by `warpforge host "
                                  "--new-credential DIR`; docs/hosts.md)"}};
  auto credential = pipeline::read_credential(hosts.request_.credential);
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

namespace {

std::string this_node() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? std::string{name} : std::string{"localhost"};
}

// The credential into <run>/credential/ (0700, files 0600), where the nodes read it.
expected<std::filesystem::path, std::string> share_credential(const pipeline::credential_files& from,
                                                              const std::filesystem::path& run_dir) {
  namespace fs = std::filesystem;
  const auto dir = run_dir / "credential";
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::permissions(dir, fs::perms::owner_all, ec);
  for (const auto& file : {from.ca, from.certificate, from.key}) {
    fs::copy_file(file, dir / file.filename(), fs::copy_options::overwrite_existing, ec);
    if (!ec)
      fs::permissions(dir / file.filename(), fs::perms::owner_read | fs::perms::owner_write, ec);
    if (ec)
      return unexpected{"cannot put the credential in " + dir.string() + ": " + ec.message()};
  }
  return dir;
}

} // namespace

expected<std::vector<gpu::device_info>, std::string> remote_hosts::start(caf::actor_system& system,
                                                                         const std::filesystem::path& run_dir) {
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
    if (request_.slurm) {
      auto shared = share_credential(credential_, run_dir);
      if (!shared)
        return unexpected{shared.error()};
      // The nodes reach this machine by its name, unless the door was bound to one address.
      const bool any = door_at_->host == "0.0.0.0" || door_at_->host == "::";
      hosts::host_command command{std::filesystem::read_symlink("/proc/self/exe"),
                                  {any ? this_node() : door_at_->host, *port}, *shared};
      auto job = hosts::submit_hosts(*request_.slurm, command, run_dir);
      if (!job)
        return unexpected{"submitting the hosts to Slurm: " + job.error().message};
      submitted_for_ = run_dir;
      logging::get("hosts")->info("Slurm job {} submits {} host(s) ({})", job->id, request_.slurm->nodes,
                                  job->script.string());
    }
  }
  // Every listed host, or every node of the Slurm job; hosts that call back otherwise: one.
  const auto hosts = static_cast<std::uint32_t>(
    std::max<std::size_t>({1, addresses_.size(), request_.slurm ? std::size_t{request_.slurm->nodes} : 0}));
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
  // Then the job: its hosts' ends are no losses to report.
  if (!submitted_for_.empty()) {
    auto cancelled = hosts::cancel_hosts(submitted_for_);
    if (cancelled)
      logging::get("hosts")->info("Slurm job {}: {}", cancelled->job_id, hosts::to_string(cancelled->outcome));
    else
      logging::get("hosts")->error("the Slurm job of {} was not cancelled: {} (warpforge stop, or scancel $(cat "
                                   "{}/hosts/slurm-job))",
                                   submitted_for_.string(), cancelled.error().message, submitted_for_.string());
    submitted_for_.clear();
  }
}

} // namespace warpforge::cli
