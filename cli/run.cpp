// `warpforge run <campaign.toml>`: validates the campaign (and every problem it names) up front,
// creates the run directory, boots the actors, and records and publishes the campaign. The
// optimize pipeline (scheduler, proposer, GPU workers) is not in this build yet: the command
// says so, records the campaign as failed with that reason, and exits not_available. Nothing is
// measured and no number is invented.

#include "cli/commands.hpp"

#include "cli/interrupt.hpp"
#include "cli/recording.hpp"
#include "config/campaign_spec.hpp"
#include "logging/logging.hpp"

#include <chrono>
#include <iostream>

namespace warpforge::cli {
namespace {

feed::event campaign_event(feed::event_type type, std::string reason = {}) {
  feed::event e;
  e.type = type;
  if (!reason.empty())
    e.detail_json = feed::detail{}.add("reason", reason).json();
  return e;
}

constexpr auto pipeline_missing =
  "the optimize pipeline (scheduler, proposer, GPU workers) is not in this build yet; "
  "the campaign was validated and recorded, nothing was measured";

} // namespace

exit_code run(const run_options& options) {
  auto spec = config::load_campaign(options.campaign_path);
  if (!spec) {
    for (const auto& error : spec.error())
      std::cerr << config::to_string(error) << '\n';
    std::cerr << "warpforge run: " << options.campaign_path << ": " << spec.error().size()
              << " error(s); nothing was started\n";
    return exit_code::bad_input;
  }

  auto level_text = options.log_level.empty() ? std::string{config::to_string(spec->log)}
                                              : options.log_level;
  auto level = logging::level_from_string(level_text);
  if (!level) {
    std::cerr << "warpforge run: --log-level " << level_text
              << ": expected trace, debug, info, warn or error\n";
    return exit_code::usage;
  }
  logging::set_level(*level);
  auto log = logging::get("campaign");

  feed::publisher_options feed_options;
  feed_options.endpoint = spec->feed.endpoint;
  feed_options.allow_remote = spec->feed.allow_remote;
  feed_options.high_water_mark = static_cast<int>(spec->feed.high_water_mark);
  auto started = start_recording(spec->run_root, spec->name, feed_options, spec->supervision);
  if (!started) {
    std::cerr << "warpforge run: " << started.error().message << '\n';
    return started.error().code;
  }
  const auto& dir = started->dir;
  auto& runtime = *started->runtime;
  watch_for_interrupt();
  std::cerr << "warpforge run: " << spec->name << " → " << dir.path().string() << "\n"
            << "  feed: " << runtime.feed_endpoint() << "   (watch: warpforge tail --run-dir "
            << dir.path().string() << ")\n";
  if (options.wait_subscribers_s > 0
      && !runtime.wait_for_subscribers(1, std::chrono::duration<double>(options.wait_subscribers_s)))
    log->warn("no feed subscriber within {} s; going on (late monitors replay from the store)",
              options.wait_subscribers_s);

  auto campaign_id = runtime.record(messages::campaign_record{
    spec->name, options.campaign_path, spec->raw_text, dir.path().string()});
  if (!campaign_id) {
    std::cerr << "warpforge run: cannot record the campaign: " << campaign_id.error() << '\n';
    return exit_code::failure;
  }
  runtime.record(messages::campaign_state_change{*campaign_id, storage::campaign_state::running, {}});
  runtime.emit(campaign_event(feed::event_type::campaign_started));

  for (const auto& job : spec->jobs) {
    auto job_id = runtime.record(messages::job_record{*campaign_id, job.name, job.problem_path.string()});
    if (!job_id) {
      std::cerr << "warpforge run: cannot record job " << job.name << ": " << job_id.error() << '\n';
      return exit_code::failure;
    }
    feed::event e;
    e.type = feed::event_type::job_failed;
    e.job = job.name;
    e.detail_json = feed::detail{}.add("reason", pipeline_missing).json();
    runtime.record(messages::job_state_change{*job_id, storage::job_state::failed, pipeline_missing});
    runtime.emit(std::move(e));
  }

  exit_code result = exit_code::not_available;
  std::string reason = pipeline_missing;
  if (auto failure = runtime.failure()) {
    result = exit_code::failure;
    reason = failure->reason;
  } else if (interrupted()) {
    result = exit_code::interrupted;
    reason = "interrupted by a signal";
  }
  runtime.record(messages::campaign_state_change{
    *campaign_id,
    result == exit_code::interrupted ? storage::campaign_state::interrupted : storage::campaign_state::failed,
    reason});
  runtime.emit(campaign_event(result == exit_code::interrupted ? feed::event_type::campaign_interrupted
                                                               : feed::event_type::campaign_failed,
                              reason));
  runtime.stop();
  log->warn("{}", reason);
  std::cerr << "warpforge run: " << reason << ".\n  recorded in " << dir.path().string()
            << "   (see: warpforge status " << dir.path().string() << ")\n";
  logging::shutdown();
  return result;
}

} // namespace warpforge::cli
