#pragma once
// runtime: one campaign's actor system. Boots the supervisor with every actor of the pipeline —
// store, feed, the compilers, the SASS checker, the proposer, one gpu_worker per GPU, the
// profiler, the scheduler and the campaign actor, in that order — watched and restarted with the
// campaign's policy; offers the few synchronous calls the command line needs; and stops
// everything in the reverse order, each actor draining what was queued before it (the campaign
// records how it ended, ..., the feed drains into the store before the store closes).

#include "actors/calibrator.hpp"
#include "actors/feed.hpp"
#include "actors/gpu_worker.hpp"
#include "actors/scheduler.hpp"
#include "config/campaign_spec.hpp"
#include "llm/chat/chat.hpp"
#include "config/supervision_policy.hpp"
#include "messages/campaign.hpp"
#include "messages/deployer.hpp"
#include "foundation/expected/expected.hpp"
#include "messages/store.hpp"
#include "pipeline/proposer.hpp"
#include "messages/supervisor.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include <chrono>
#include <functional>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace warpforge::actors {

/// The actor system configuration every warpforge node uses: our message types registered,
/// CAF's own command-line parsing left out (CLI11 owns argv).
class system_config : public caf::actor_system_config {
public:
  system_config();
};

/// The actors of the pipeline (a runtime without them records and publishes only: `program`).
struct pipeline_options {
  std::vector<gpu_worker_config> workers;  // one per GPU; empty: no GPU here
  std::size_t compilers = 1;               // compiler actors (as many as cores, or [compiler] workers)
  pipeline::compile_function compile;      // NVRTC through the content cache (a slower one in tests)
  std::shared_ptr<const config::campaign_spec> spec; // the campaign as the command loaded it: the
                                             // campaign and scheduler actors do not parse it again
  config::proposer_spec proposer;
  pipeline::parsed_problems problems;        // the campaign's problems as loaded (the tuner's spaces)
  std::optional<config::llm_spec> llm;       // the llm and replay proposers' [llm] settings
  std::shared_ptr<llm::chat_client> model;   // the provider's client: an llm actor serves it
                                             // (none: no llm actor, as for tune and replay)
  scheduler_options scheduler;
  // Applied to the system's configuration before it starts: the network and TLS of a coordinator
  // whose GPUs are remote hosts' (actors/hosts/network.hpp, enable_network); none: no network.
  std::function<void(caf::actor_system_config&)> configure;
};

struct runtime_options {
  std::filesystem::path database;  // the run directory's SQLite file
  feed_options feed;
  config::supervision_policy supervision;
  std::optional<pipeline_options> pipeline;
  std::optional<calibrator_config> calibrate; // a calibrate campaign: its gpu_workers and the calibrator
  bool deployer = false; // a deployer actor even without the pipeline (`warpforge deploy`)
};

/// How long the runtime waits for a synchronous answer from one of its actors.
inline constexpr std::chrono::seconds request_timeout{30};
/// How often start() looks again for a feed that the supervisor is restarting.
inline constexpr std::chrono::milliseconds feed_start_poll{50};
/// How often run() looks at the interrupt flag while the campaign runs.
inline constexpr std::chrono::milliseconds campaign_poll{200};
/// How long stop() waits for the actors to drain and quit.
inline constexpr std::chrono::seconds stop_timeout{30};

class runtime {
public:
  /// Boots the system; fails (naming the component) when the store or the feed cannot start.
  static expected<std::unique_ptr<runtime>, std::string> start(runtime_options options);
  ~runtime();

  caf::actor_system& system() { return *system_; }

  /// One store write, answered with its row id once durable (program mode records through this).
  template <class Record>
  expected<std::int64_t, std::string> record(const Record& r);

  /// Runs `plan` through the campaign actor to its end. `interrupted` is polled: once it says
  /// so, in-flight work is ended interrupted and the campaign stops. The error: the supervisor
  /// gave up (its reason), or the pipeline is not running.
  expected<pipeline::campaign_result, std::string> run(const messages::campaign_plan& plan,
                                                       const std::function<bool()>& interrupted);

  /// Runs `order` through the calibrator to its end, like run(): `interrupted` is polled (once it
  /// says so, no parameter is handed out any more and the run ends interrupted); a calibrator
  /// restarted after a crash is asked again. The error: the supervisor gave up (its reason), or
  /// no calibrator in this runtime.
  expected<messages::calibration_end, std::string> calibrate(const messages::calibration_order& order,
                                                             const std::function<bool()>& interrupted);

  /// Runs one deploy (or recovery) through the deployer actor to its end: minutes, while the
  /// user's program builds and runs. The error: no deployer in this runtime, or it failed.
  expected<messages::deploy_answer, std::string> deploy(const messages::deploy_order& order);

  /// Puts an event on the feed (fire and forget; the feed stamps seq and time).
  void emit(feed::event e);

  /// The feed's bound endpoint ("tcp://127.0.0.1:5757").
  const std::string& feed_endpoint() const { return feed_endpoint_; }

  /// Waits until the feed has `subscriptions` subscriptions, at most `timeout`.
  bool wait_for_subscribers(std::uint32_t subscriptions, std::chrono::duration<double> timeout);

  /// The supervisor's report of every component.
  expected<messages::supervision_report, std::string> report();

  /// A supervision failure received so far, without waiting.
  std::optional<messages::supervision_failed> failure();

  /// Drains and stops every actor (feed first, then store). Idempotent.
  void stop();

private:
  runtime() = default;

  std::unique_ptr<system_config> config_;
  std::unique_ptr<caf::actor_system> system_;
  std::unique_ptr<caf::scoped_actor> self_; // owner of the supervisor: hears supervision_failed
  messages::supervisor_actor supervisor_;
  std::string feed_endpoint_;
  std::optional<messages::supervision_failed> failure_;
  bool stopped_ = false;
};

} // namespace warpforge::actors
