#pragma once
// What run, resume, bench and diagnose share: find the GPUs, open (or reopen) the run directory
// with the whole actor pipeline recording into it, hand the campaign to the campaign actor, wait
// for its end while watching for Ctrl-C, and stop everything in order. The commands differ only
// in the campaign they describe and in what they print afterwards.

#include "apps/warpforge/cli/exit_codes.hpp"
#include "apps/warpforge/cli/recording.hpp"
#include "apps/warpforge/cli/remote_hosts.hpp"
#include "config/campaign_spec.hpp"
#include "foundation/expected/expected.hpp"
#include "gpu/device_report.hpp"
#include "pipeline/campaign.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::cli {

struct session_request {
  std::string verb;                        // "run", "resume", "bench", "diagnose": messages
  config::campaign_spec spec;              // validated
  std::string spec_path;                   // as recorded
  pipeline::campaign_mode mode = pipeline::campaign_mode::optimize;
  std::vector<std::string> candidates;     // bench, diagnose
  vocabulary::timing_mode timing = vocabulary::timing_mode::warm;
  std::optional<std::filesystem::path> resume_dir; // reopen this run directory
  std::string gpus = "all";                // "all" or a comma list of ordinals
  std::string gpus_origin = "--gpus";      // where `gpus` came from, for its errors: the flag
                                           // (usage, exit 2) or "<spec>:line:col: gpus" (exit 3)
  std::string feed_endpoint;               // empty: the spec's
  std::chrono::milliseconds lock_timeout{std::chrono::minutes{10}};
  std::optional<std::chrono::milliseconds> watchdog; // per-kernel reply deadline; none: default
  double wait_subscribers_s = 0;
  bool quiet = false;                      // no progress on the terminal
  std::optional<hosts_request> hosts;      // GPUs of `warpforge host` processes instead of this
                                           // machine's (docs/hosts.md)
};

struct session_outcome {
  std::filesystem::path run_dir;
  pipeline::campaign_result result;
  std::vector<gpu::device_info> gpus;  // the GPUs it ran on (empty: none here)
  std::string why_no_gpu;              // when `gpus` is empty
};

/// Runs the campaign to its end. The error: the run directory or the pipeline could not start,
/// --gpus names a GPU this host lacks (usage), or the supervisor gave up (failure, its reason).
expected<session_outcome, recording_failure> run_session(const session_request& request);

} // namespace warpforge::cli
