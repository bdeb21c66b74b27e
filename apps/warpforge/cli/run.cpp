// `warpforge run <campaign.toml>` and `warpforge resume <run-dir>`: validate the campaign (and
// every problem it names) up front, then run it through the pipeline (apps/warpforge/cli/pipeline_session.hpp)
// and, afterwards, write summary.md and its charts and print the headline.
//
// Without a GPU the pipeline compiles and SASS-checks each job's baseline and first proposal and
// the command says plainly that measurements need a GPU (exit 5): no number is invented.

#include "config/toml_reader/placed_error.hpp"
#include "apps/warpforge/cli/commands.hpp"
#include "config/deploy_target.hpp"
#include "gpu/runner/child_environment.hpp"

#include "apps/warpforge/cli/gpu_fleet.hpp"
#include "apps/warpforge/cli/command_output.hpp"
#include "apps/warpforge/cli/pipeline_session.hpp"
#include "apps/warpforge/cli/user_errors.hpp"
#include "config/campaign_spec.hpp"
#include "foundation/logging/logging.hpp"
#include "pipeline/code_check.hpp"
#include "pipeline/proposer.hpp"
#include "report/campaign_report.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"
#include "storage/run_owner.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace warpforge::cli {
namespace {

namespace fs = std::filesystem;

std::string gpus_option(const config::gpu_selection& selection) {
  if (selection.kind == config::gpu_selection_kind::all)
    return "all";
  std::string text;
  for (auto ordinal : selection.ordinals)
    text += (text.empty() ? "" : ",") + std::to_string(ordinal);
  return text;
}

// summary.md and the charts from what the store now holds; the headline on stdout unless
// `headline` is false (nothing measured: every row would repeat the same reason).
void write_report(const fs::path& run_dir, bool headline) {
  auto report = report::load_report(run_dir);
  if (!report)
    return;
  if (auto written = report::write_summary(*report); !written)
    logging::get("campaign")->warn("summary not written: {}", written.error());
  if (!headline || quiet_mode())
    return;
  const auto md = report::render_markdown(*report);
  const auto head = md.find("## Headline");
  if (head != std::string::npos)
    std::cout << md.substr(head, md.find("\n## ", head + 1) - head) << '\n';
}

// Where each GPU's wall time went (docs/report.md, "Throughput"): its candidates measured, kernels
// (busy), the races' set-up, profiles, waiting for a compile, and idle with nothing ready
// (pipeline/campaign.hpp, gpu_usage). The shares add up to the wall time.
void print_gpu_usage(const pipeline::campaign_result& r) {
  if (r.gpus.empty() || r.wall_s <= 0)
    return;
  std::fprintf(stderr,
               "  GPU   races profiles measured   kernels   set-up profiles wait compile   idle   (share of %.1f s "
               "wall)\n",
               r.wall_s);
  for (const auto& g : r.gpus) {
    const double idle = std::max(0.0, r.wall_s - g.occupied_s - g.waited_for_compile_s);
    const double setup = std::max(0.0, g.occupied_s - g.kernel_s - g.profile_s);
    std::fprintf(stderr, "  %-3d %7llu %8llu %8llu   %6.1f%%  %6.1f%%  %6.1f%%      %6.1f%% %6.1f%%\n", g.ordinal,
                 static_cast<unsigned long long>(g.races), static_cast<unsigned long long>(g.profiles),
                 static_cast<unsigned long long>(g.measured), 100 * g.kernel_s / r.wall_s, 100 * setup / r.wall_s,
                 100 * g.profile_s / r.wall_s, 100 * g.waited_for_compile_s / r.wall_s, 100 * idle / r.wall_s);
  }
}

// The shares of GPU time are measured only where there was a GPU: without one they read "not
// measured (no GPU)", never 0%. The counts (kernels compiled, measured) are real either way.
void print_usage(const session_outcome& o) {
  const auto& r = o.result;
  if (quiet_mode()) { // --quiet: only what went wrong
    if (r.kind != pipeline::campaign_result_kind::finished && !r.reason.empty())
      std::cerr << "warpforge: " << r.reason << '\n';
    return;
  }
  std::string shares = "GPU time not measured (no GPU";
  shares += o.why_no_gpu.empty() ? ")" : ": " + o.why_no_gpu + ")";
  if (!o.gpus.empty()) {
    char text[200];
    const double gpu_hours = r.wall_s * static_cast<double>(o.gpus.size()) / 3600.0;
    std::snprintf(text, sizeof text,
                  "%.0f per GPU-hour; GPU busy %.0f%% (kernel time over wall time), workers "
                  "occupied %.0f%%, GPUs waited %.1f s for compiles, over %zu GPU(s)",
                  gpu_hours > 0 ? static_cast<double>(r.measured) / gpu_hours : 0.0, r.gpu_busy_fraction * 100,
                  r.worker_occupancy * 100, r.gpu_wait_for_compile_s, o.gpus.size());
    shares = text;
  }
  std::fprintf(stderr,
               "warpforge: %s in %.1f s: %llu kernels compiled, %llu candidates measured; %s\n"
               "  recorded in %s (summary.md, warpforge report)\n",
               r.kind == pipeline::campaign_result_kind::finished      ? "finished"
               : r.kind == pipeline::campaign_result_kind::interrupted ? "interrupted"
                                                                       : "failed",
               r.wall_s, static_cast<unsigned long long>(r.compiled), static_cast<unsigned long long>(r.measured),
               shares.c_str(), o.run_dir.string().c_str());
  print_gpu_usage(r);
  // The counts above are this process's; a resume adds what the whole campaign holds: every
  // candidate a GPU gave a verdict (a time, or a failure only a GPU finds), as counted above.
  if (auto db = storage::database::open_read_only(o.run_dir / storage::run_directory::database_file))
    if (auto all = db->raw().query_int64(
          "SELECT (SELECT count(*) FROM measurements) + (SELECT count(*) FROM branches WHERE outcome IN "
          "('incorrect', 'runtime_error', 'timeout', 'inconsistent', 'suspicious'))");
        all && static_cast<std::uint64_t>(*all) > r.measured)
      std::fprintf(stderr, "  the campaign holds %lld candidate(s) measured in all, earlier runs of it included\n",
                   static_cast<long long>(*all));
  if (!r.reason.empty())
    std::cerr << "  " << r.reason << '\n';
}

// The llm proposer's key is looked for before anything starts (by name: its value is never read
// here, only whether it is set). A local server may want none (api_key_env = "").
std::optional<std::string> missing_key(const config::campaign_spec& spec) {
  if (spec.proposer.kind != config::proposer_kind::llm || !spec.llm || spec.llm->api_key_env.empty())
    return std::nullopt;
  const char* value = std::getenv(spec.llm->api_key_env.c_str());
  if (value != nullptr && *value != '\0')
    return std::nullopt;
  return "llm.api_key_env: the environment variable " + spec.llm->api_key_env +
         " is not set (export it, or set api_key_env = \"\" for a local server that needs no key)";
}

// [deploy] at_end: each job whose problem names a target, through `warpforge deploy`'s path (its
// outcome is printed and recorded; a roll-back does not fail the campaign, which did finish).
void deploy_every_target(const config::campaign_spec& spec, const fs::path& run_dir) {
  for (const auto& job : spec.jobs) {
    auto target = deploy::load_deploy_target(job.problem_path);
    if (!target) {
      std::cout << "\nnot deploying " << job.name << ": " << job.problem_path.string()
                << ": its [deploy] table no longer loads:\n" << toml_reader::to_string(target.error()) << '\n';
      continue;
    }
    if (!*target)
      continue;
    std::cout << "\ndeploying " << job.name << " into " << (*target)->project.string() << '\n';
    deploy_options options;
    options.run_dir = run_dir.string();
    options.job = job.name;
    deploy(options);
  }
}

// GPU hosts (docs/hosts.md): the spec's [hosts] addresses and those of the command line, or the
// spec's [hosts.slurm] (hosts submitted by the run, calling back).
void attach_hosts(session_request& request, std::vector<std::string> addresses,
                                      const std::string& listen, const std::string& credential, double wait_s) {
  for (const auto& address : request.spec.hosts.addresses)
    addresses.push_back(address.to_string());
  if (!addresses.empty() || !listen.empty() || !credential.empty() || request.spec.hosts.slurm) {
    request.hosts = hosts_request{addresses, listen, credential, wait_s};
    if (request.spec.hosts.slurm) { // the nodes call back; on every interface unless told one
      request.hosts->slurm = *request.spec.hosts.slurm;
      if (request.hosts->listen.empty())
        request.hosts->listen = "0.0.0.0:0";
    }
    request.hosts->campaign = request.spec.name;
  }
}

exit_code run_campaign(session_request request, const std::string& log_level) {
  auto level_text = log_level.empty() ? std::string{config::to_string(request.spec.log)} : log_level;
  auto level = logging::level_from_string(level_text);
  if (!level) {
    std::cerr << "warpforge " << request.verb << ": --log-level " << level_text
              << ": expected trace, debug, info, warn or error\n";
    return exit_code::usage;
  }
  logging::set_level(*level);
  // Refused before anything is created: a proposer this build lacks is never replaced by another.
  if (auto missing = missing_key(request.spec)) {
    std::cerr << "warpforge " << request.verb << ": " << request.spec_path << ": " << *missing
              << "; nothing was started\n";
    return exit_code::bad_input;
  }
  // The key's variable never reaches a runner, compiler or deploy command, whatever its name.
  if (request.spec.llm)
    gpu::withhold_from_children(request.spec.llm->api_key_env);
  request.gpus = gpus_option(request.spec.gpus);
  if (const auto& at = request.spec.gpus.place; at.line > 0)
    request.gpus_origin = request.spec_path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": gpus";
  auto outcome = run_session(request);
  if (!outcome) {
    std::cerr << "warpforge " << request.verb << ": " << outcome.error().message << '\n';
    logging::shutdown();
    return outcome.error().code;
  }
  // No GPU: two lines (why, once; what to do next) instead of a headline of unmeasured rows.
  const bool nothing_measurable = outcome->gpus.empty() && outcome->result.kind == pipeline::campaign_result_kind::failed;
  write_report(outcome->run_dir, !nothing_measurable);
  if (nothing_measurable)
    say_no_gpu(request.verb, outcome->why_no_gpu,
               std::to_string(outcome->result.compiled) + " kernels compiled (" + pipeline::code_check_scope() +
                 "), none measured; recorded in " + outcome->run_dir.string() + " (summary.md)");
  else
    print_usage(*outcome);
  if (request.spec.deploy_at_end && outcome->result.kind == pipeline::campaign_result_kind::finished)
    deploy_every_target(request.spec, outcome->run_dir);
  logging::shutdown();
  switch (outcome->result.kind) {
  case pipeline::campaign_result_kind::interrupted: return exit_code::interrupted;
  case pipeline::campaign_result_kind::finished: return exit_code::ok;
  case pipeline::campaign_result_kind::failed: return outcome->gpus.empty() ? exit_code::no_gpu : exit_code::failure;
  }
  return exit_code::failure;
}

} // namespace

exit_code run(const run_options& options) {
  auto spec = config::load_campaign(options.campaign_path);
  if (!spec) {
    for (const auto& error : spec.error())
      std::cerr << toml_reader::to_string(error) << '\n';
    std::cerr << "warpforge run: " << options.campaign_path << ": " << spec.error().size()
              << " error(s); nothing was started\n";
    return exit_code::bad_input;
  }
  if (spec->kind == config::campaign_kind::calibrate) // parameters to measure, not kernels to optimise
    return calibrate_campaign(*spec, options.campaign_path);
  session_request request;
  request.verb = "run";
  request.spec = std::move(*spec);
  request.spec_path = options.campaign_path;
  request.wait_subscribers_s = options.wait_subscribers_s;
  request.quiet = options.quiet;
  attach_hosts(request, options.hosts, options.hosts_listen, options.credential, options.hosts_wait_s);
  return run_campaign(std::move(request), options.log_level);
}

exit_code resume(const resume_options& options) {
  auto earlier = report::load_report(options.run_dir);
  if (!earlier) {
    std::cerr << "warpforge resume: " << user_message(earlier.error()) << '\n';
    return exit_code::bad_input;
  }
  // Whose run it is, before any socket is bound: a live campaign holds its feed port, and "address
  // in use" would hide the real reason. (The claim made later stays the guard against a race.)
  if (auto dir = storage::run_directory::open(options.run_dir))
    if (auto holder = storage::run_owner::holder(*dir)) {
      std::cerr << "warpforge resume: " << options.run_dir << ": campaign is running (pid " << holder->pid
                << (holder->command.empty() ? "" : ": " + holder->command) << "); nothing was started\n";
      return exit_code::failure;
    }
  if (earlier->campaign.state == vocabulary::campaign_state::finished) {
    std::cerr << "warpforge resume: " << options.run_dir
              << ": the campaign finished; nothing to resume (see: warpforge report)\n";
    return exit_code::ok;
  }
  // The spec as it was validated then, read again (its problem files must still be there).
  auto spec = config::parse_campaign(earlier->campaign.spec_toml, earlier->campaign.spec_path);
  if (!spec) {
    for (const auto& error : spec.error())
      std::cerr << toml_reader::to_string(error) << '\n';
    std::cerr << "warpforge resume: the campaign spec recorded in " << options.run_dir
              << " no longer validates; nothing was started\n";
    return exit_code::bad_input;
  }
  if (spec->kind == config::campaign_kind::calibrate) {
    calibrate_options calibration;
    calibration.resume_dir = options.run_dir;
    return calibrate(calibration);
  }
  session_request request;
  request.verb = "resume";
  request.spec = std::move(*spec);
  request.spec_path = earlier->campaign.spec_path;
  request.resume_dir = fs::path{options.run_dir};
  request.quiet = options.quiet;
  attach_hosts(request, options.hosts, options.hosts_listen, options.credential, options.hosts_wait_s);
  return run_campaign(std::move(request), options.log_level);
}

} // namespace warpforge::cli
