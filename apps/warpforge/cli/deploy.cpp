// `warpforge deploy <run-dir>`: a finished job's champion into the user's project, through the
// deployer actor (deploy/README.md walks the steps). The run directory records every step (store
// rows, feed events) and keeps the journal, the backup, the written text and the logs under
// deploy/<job>/<stamp>/.

#include "apps/warpforge/cli/commands.hpp"
#include "apps/warpforge/cli/recording.hpp"
#include "config/campaign_spec.hpp"
#include "deploy/deploy_steps.hpp"
#include "deploy/kernel_times.hpp"
#include "gpu/runner/child_environment.hpp"
#include "foundation/json/writer.hpp"
#include "report/campaign_report.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <optional>

namespace warpforge::cli {

namespace {

namespace fs = std::filesystem;

// The run's own [feed] (monitors of the campaign hear its deploy) and campaign name; --feed
// overrides; a spec that no longer validates falls back to a free port.
struct run_feed {
  feed::publisher_options feed;
  std::string campaign = "deploy";
};

run_feed feed_for(const deploy_options& options) {
  run_feed out;
  auto& feed = out.feed;
  feed.endpoint = "tcp://127.0.0.1:*";
  if (auto earlier = report::load_report(options.run_dir)) {
    out.campaign = earlier->campaign.name;
    if (auto spec = config::parse_campaign(earlier->campaign.spec_toml, earlier->campaign.spec_path)) {
      if (spec->llm) // the build, verify and time commands never see the campaign's key variable
        gpu::withhold_from_children(spec->llm->api_key_env);
      feed.endpoint = spec->feed.endpoint;
      feed.allow_remote = spec->feed.allow_remote;
      feed.high_water_mark = static_cast<int>(spec->feed.high_water_mark);
    }
  }
  if (!options.feed_endpoint.empty())
    feed.endpoint = options.feed_endpoint;
  return out;
}

// --job naming no job of the run: the reason, with the run's jobs; nullopt when it names one
// (or none is named, or the run does not load: the recording's own error says that).
std::optional<std::string> unknown_job(const deploy_options& options) {
  if (options.job.empty())
    return std::nullopt;
  auto earlier = report::load_report(options.run_dir);
  if (!earlier)
    return std::nullopt;
  std::string names;
  for (const auto& job : earlier->jobs) {
    if (job.row.name == options.job)
      return std::nullopt;
    names += (names.empty() ? "" : ", ") + job.row.name;
  }
  return "no job '" + options.job + "' in " + options.run_dir + " (its jobs: " + (names.empty() ? "none" : names) + ")";
}

std::string timing_text(double median, double spread, const std::string& unit) {
  char text[96];
  std::snprintf(text, sizeof text, "%.4g %s (spread %.3g)", median, unit.c_str(), spread);
  return text;
}

// Every kernel before and after, as the deploy journaled it (<work_dir>/journal.json): observed
// timing's per-kernel rows, or RESULT timing's note that no other kernel was timed. None when the
// deploy ended before its first timing; a journal that cannot be read is said, not guessed.
expected<std::optional<deploy::kernel_comparison>, std::string> journaled_kernels(const std::string& work_dir) {
  if (work_dir.empty())
    return std::optional<deploy::kernel_comparison>{};
  const auto journal = fs::path{work_dir} / "journal.json";
  std::ifstream in{journal, std::ios::binary};
  if (!in)
    return unexpected{"cannot read " + journal.string()};
  std::stringstream text;
  text << in.rdbuf();
  auto kernels = deploy::comparison_in_journal(text.str());
  if (!kernels)
    return unexpected{journal.string() + ": " + kernels.error()};
  return kernels;
}

// Only for an answer with an outcome: one that could not start is told on stderr before.
void print_answer(const messages::deploy_answer& a) {
  std::cout << "deploy: " << deploy::to_string(*a.outcome) << (a.reason.empty() ? "" : ": " + a.reason) << '\n';
  if (a.has_before)
    std::cout << "  before: " << timing_text(a.before_median, a.before_spread, a.unit) << '\n';
  if (a.has_after)
    std::cout << "  after:  " << timing_text(a.after_median, a.after_spread, a.unit) << '\n';
  if (a.has_before && a.has_after && a.after_median > 0)
    std::cout << "  real program: " << a.before_median / a.after_median << "x\n";
  if (auto kernels = journaled_kernels(a.work_dir); !kernels)
    std::cout << "  kernels: " << kernels.error() << '\n';
  else if (*kernels && (*kernels)->timed) {
    std::cout << "  every kernel (median over the runs; noise = the larger spread):\n";
    for (const auto& line : deploy::comparison_lines(**kernels))
      std::cout << "    " << line << '\n';
  } else if (*kernels) {
    std::cout << "  " << deploy::untimed_note << '\n';
  }
  if (!a.work_dir.empty())
    std::cout << "  journal, backup, logs: " << a.work_dir << '\n';
}

void print_json(const messages::deploy_answer& a) {
  json::writer w;
  w.begin_object().key("outcome").value(deploy::to_string(*a.outcome)).key("reason").value(a.reason).key("work_dir").value(a.work_dir);
  w.key("unit").value(a.unit);
  if (a.has_before)
    w.key("before").begin_object().key("median").value(a.before_median).key("spread").value(a.before_spread).end_object();
  if (a.has_after)
    w.key("after").begin_object().key("median").value(a.after_median).key("spread").value(a.after_spread).end_object();
  if (auto kernels = journaled_kernels(a.work_dir); !kernels)
    w.key("kernels_error").value(kernels.error());
  else if (*kernels)
    w.key("kernels").raw(deploy::comparison_json(**kernels));
  w.end_object();
  std::cout << std::move(w).str() << '\n';
}

// Accepted, skipped (the gate) and a recovery did what was asked; a roll-back, a refusal or a
// failure did not.
exit_code code_of(deploy::deploy_outcome outcome) {
  using enum deploy::deploy_outcome;
  switch (outcome) {
    case accepted:
    case skipped:
    case recovered:
    case nothing_to_recover: return exit_code::ok;
    case rolled_back:
    case failed:
    case refused:
    case interrupted: return exit_code::failure;
  }
  return exit_code::failure;
}

} // namespace

exit_code deploy(const deploy_options& options) {
  if (options.recover && !options.source.empty()) {
    std::cerr << "warpforge deploy: --recover puts the original back; it takes no --source\n";
    return exit_code::usage;
  }
  const auto verb = std::string{options.recover ? "deploy --recover" : "deploy"};
  // A job the run does not have is refused before any actor, store or socket starts.
  if (auto unknown = unknown_job(options)) {
    std::cerr << "warpforge " << verb << ": " << *unknown << "; nothing was started\n";
    return exit_code::bad_input;
  }
  auto [feed, campaign] = feed_for(options);
  auto started = resume_recording(options.run_dir, campaign, "warpforge " + verb, std::move(feed),
                                  config::supervision_policy{});
  if (!started) {
    std::cerr << "warpforge " << verb << ": " << options.run_dir << ": " << started.error().message << '\n';
    return started.error().code;
  }
  auto answer = started->runtime->deploy(
    messages::deploy_order{fs::absolute(options.run_dir).string(), options.job,
                           options.source.empty() ? "" : fs::absolute(options.source).string(), options.recover});
  started->runtime->stop();
  if (!answer) {
    std::cerr << "warpforge " << verb << ": the deployer failed: " << answer.error() << '\n';
    return exit_code::failure;
  }
  if (!answer->outcome) {
    std::cerr << "warpforge " << verb << ": " << answer->reason << "; nothing was changed\n";
    return exit_code::bad_input;
  }
  options.json ? print_json(*answer) : print_answer(*answer);
  return code_of(*answer->outcome);
}

} // namespace warpforge::cli
