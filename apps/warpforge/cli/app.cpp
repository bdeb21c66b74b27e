#include "apps/warpforge/cli/app.hpp"

#include "apps/warpforge/cli/command_output.hpp"
#include "apps/warpforge/cli/command_tree.hpp"
#include "apps/warpforge/cli/commands.hpp"
#include "apps/warpforge/cli/defaults.hpp"
#include "apps/warpforge/cli/runs.hpp"
#include "apps/warpforge/cli/shell_docs.hpp"
#include "apps/warpforge/cli/version.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::cli {
namespace {

// Every command that works on a recorded run names it the same way: a positional run directory,
// or --run-dir (the same option under its long name).
constexpr auto run_dir_names = "run-dir,--run-dir";

// --quiet and --json of the commands that run something (apps/warpforge/cli/command_output.hpp).
struct output_flags {
  bool quiet = false;
  bool json = false;
};

void add_output_flags(CLI::App& command, output_flags& flags) {
  command.add_flag("--quiet", flags.quiet, "Print only warnings and errors (the run's log keeps every line)");
  command.add_flag("--json", flags.json,
                   "One JSON object on stdout: the run directory and the outcome (the human text goes to stderr)");
}

exit_code run_with_output_flags(std::string_view verb, const output_flags& flags,
                                const std::function<exit_code()>& command) {
  if (flags.quiet)
    enter_quiet_mode();
  return run_with_json_result(verb, flags.json, command);
}

// A positional argument of tail and dashboard: a feed endpoint (transport://address) or a run
// directory (anything else), so `warpforge tail runs/X` follows that run.
void split_run_dir_or_endpoint(const std::string& target, std::string& run_dir, std::string& endpoint) {
  if (target.empty())
    return;
  if (target.find("://") != std::string::npos)
    endpoint = target;
  else
    run_dir = target;
}

// One function a subcommand: its options live in a shared_ptr that its callback holds, so they
// outlive parsing; the callback runs the command and leaves its exit code in `result`.

// GPU hosts of run and resume (docs/hosts.md).
void add_host_options(CLI::App& command, std::vector<std::string>& hosts, std::string& listen, std::string& credential,
                      double& wait_s) {
  command.add_option("--host", hosts,
                     "HOST:PORT of a `warpforge host --listen`: measure on its GPUs (repeat for more; docs/hosts.md)");
  command.add_option("--hosts-listen", listen,
                     "[ADDR:]PORT where `warpforge host --coordinator` processes call back (docs/hosts.md)");
  command.add_option("--credential", credential, "The hosts' campaign credential folder (docs/hosts.md)");
  command.add_option("--hosts-wait", wait_s, "Seconds to wait for every host before the campaign starts with those that came");
}

void add_run(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<run_options>();
  auto* command = app.add_subcommand("run", "Run a campaign from its spec");
  // No CLI11 existence check: the spec loader reports a missing file as bad input (exit 3).
  command->add_option("campaign", opts->campaign_path, "Campaign spec (TOML)")->required();
  command->add_option("--log-level", opts->log_level,
                      "trace|debug|info|warn|error (overrides the spec's [log] level)");
  command->add_option("--wait-subscribers", opts->wait_subscribers_s,
                      "Seconds to wait for a feed subscriber before the first event");
  add_host_options(*command, opts->hosts, opts->hosts_listen, opts->credential, opts->hosts_wait_s);
  auto flags = std::make_shared<output_flags>();
  add_output_flags(*command, *flags);
  command->callback([opts, flags, &result] {
    opts->quiet = flags->quiet;
    result = run_with_output_flags("run", *flags, [&] { return run(*opts); });
  });
}

void add_resume(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<resume_options>();
  auto* command = app.add_subcommand("resume", "Continue an interrupted campaign from its run directory");
  command->add_option(run_dir_names, opts->run_dir, "Run directory")->required();
  command->add_option("--log-level", opts->log_level, "trace|debug|info|warn|error");
  add_host_options(*command, opts->hosts, opts->hosts_listen, opts->credential, opts->hosts_wait_s);
  auto flags = std::make_shared<output_flags>();
  add_output_flags(*command, *flags);
  command->callback([opts, flags, &result] {
    opts->quiet = flags->quiet;
    result = run_with_output_flags("resume", *flags, [&] { return resume(*opts); });
  });
}

void add_host(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<host_options>();
  auto* command = app.add_subcommand(
    "host", "Offer this node's GPUs to a campaign's coordinator over TLS (docs/hosts.md); or make a credential");
  command->add_option("--credential", opts->credential,
                      "The campaign's credential folder (ca.pem, member.pem, member.key; docs/hosts.md)");
  auto* listen = command->add_option("--listen", opts->listen,
                                     "[ADDR:]PORT to wait for the coordinator on (ADDR default 127.0.0.1)");
  auto* coordinator = command->add_option("--coordinator", opts->coordinator, "HOST:PORT of the coordinator to call back");
  listen->excludes(coordinator);
  command->add_option("--gpus", opts->gpus, "GPUs of this node to offer: all, or a comma list of ordinals");
  command->add_option("--runner", opts->runner, "The warpforge-runner executable (default: as `warpforge run` finds it)");
  command->add_option("--work-dir", opts->work_dir, "Where the kernels compiled here go (default: a temporary folder)");
  command->add_option("--new-credential", opts->new_credential,
                      "Make a fresh campaign credential in this folder (0600) and exit");
  command->callback([opts, &result] { result = host(*opts); });
}

void add_deploy(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<deploy_options>();
  auto* command = app.add_subcommand(
    "deploy", "Write a finished job's champion into its project ([deploy] of its problem): build, verify, time, "
              "keep it only if the real program got faster, else restore the original");
  command->add_option(run_dir_names, opts->run_dir, "Run directory of the finished campaign")->required();
  command->add_option("--job", opts->job, "The job to deploy (default: the only one whose problem has [deploy])");
  command->add_option("--source", opts->source, "Deploy this kernel file instead of the champion (the gain gate "
                                                "is skipped; the rest is the same)");
  command->add_flag("--recover", opts->recover, "Put back what a deploy killed mid-way wrote and unlock the project (refused while that deploy still runs)");
  command->add_option("--feed", opts->feed_endpoint, "Feed endpoint (default: the campaign's [feed])");
  command->add_flag("--json", opts->json, "One JSON object on stdout");
  command->callback([opts, &result] { result = deploy(*opts); });
}

void add_status(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<status_options>();
  auto* command = app.add_subcommand("status", "Show a campaign's progress from its run directory");
  command->add_option(run_dir_names, opts->run_dir, "Run directory")->required();
  command->add_flag("--json", opts->json, "Machine-readable output");
  command->callback([opts, &result] { result = status(*opts); });
}

void add_stop(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<stop_options>();
  auto* command = app.add_subcommand("stop", "End a running campaign as Ctrl-C would, and cancel its Slurm hosts");
  command->add_option(run_dir_names, opts->run_dir, "Run directory")->required();
  command->add_option("--wait", opts->wait_s, "Seconds the campaign may take to record its end")
    ->check(CLI::PositiveNumber);
  command->callback([opts, &result] { result = stop(*opts); });
}

void add_program(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<program_options>();
  auto* command = app.add_subcommand(
    "program", "Build a whole benchmark program with nvcc and run it N times per GPU, reading RESULT lines");
  command->add_option("source", opts->source_path, "The program (.cu with main())")->required();
  command->add_option("--gpus", opts->gpus, "all, or a comma list of GPU ordinals");
  command->add_option("--trials", opts->trials, "Runs per GPU")->check(CLI::Range(1u, 1000u));
  command->add_option("--watchdog", opts->watchdog_s, "Seconds a trial may run before it is killed");
  command->add_option("--arch", opts->arch, "nvcc target, e.g. sm_90a (default: the GPU's)");
  command->add_option("--run-root", opts->run_root, "Where the run directory is created");
  command->add_option("args", opts->arguments, "Arguments for the program (after --)");
  command->add_flag("--json", opts->json, "One JSON object instead of the table");
  auto quiet = std::make_shared<bool>(false);
  command->add_flag("--quiet", *quiet, "Print only warnings and errors besides the table");
  command->callback([opts, quiet, &result] {
    if (*quiet)
      enter_quiet_mode();
    result = program(*opts);
  });
}

void add_observe(CLI::App& app, exit_code& result, bool separator_given) {
  auto opts = std::make_shared<observe_options>();
  opts->separator_given = separator_given;
  auto* command = app.add_subcommand(
    "observe", "Run a program once, unmodified, and record its kernel launches; pick the representative configurations");
  command->add_option("--kernel", opts->kernel, "Only this kernel (name, base name or mangled symbol)");
  command->add_option("--method", opts->method, "auto (injection library, else ncu), cupti or ncu")
    ->check(CLI::IsMember({"auto", "cupti", "ncu"}));
  command->add_option("--cache-dir", opts->cache_dir, "Where <kernel>.observed.json is kept");
  command->add_flag("--fresh", opts->fresh, "Observe again even if the cached observation's signature holds");
  command->add_option("--source", opts->sources, "A file whose bytes join the signature; repeatable");
  command->add_option("--top-k", opts->top_k, "Configurations kept at most")->check(CLI::Range(1, 1000));
  command->add_option("--coverage", opts->coverage, "Share of the kernel's time to cover (0, 1]");
  command->add_option("--split", opts->split, "p95/p25 ratio above which a geometry splits into fast and slow");
  command->add_option("--problem", opts->problem_path, "Write this problem's configs file from the observation");
  command->add_option("--configs-out", opts->configs_out, "The configs file (default: <problem dir>/<kernel>.configs.toml)");
  command->add_option("--timeout", opts->timeout_s, "Seconds the program may run before it is killed");
  command->add_flag("--json", opts->json, "One JSON object instead of the table");
  command->add_option("command", opts->command, "The program and its arguments (after --)");
  command->callback([opts, &result] { result = observe(*opts); });
}

void add_init(CLI::App& app, exit_code& result, bool separator_given) {
  auto opts = std::make_shared<init_options>();
  opts->separator_given = separator_given;
  auto* command = app.add_subcommand(
    "init", "Run a program once and draft a problem spec for one of its kernels, every guess commented for review");
  command->add_option("--kernel", opts->kernel, "The kernel (name, template-id such as MatrixMulCUDA<32>, or symbol)")
    ->required();
  command->add_option("--source", opts->source, "Its source file (default: found from the program's line info)");
  command->add_option("--out", opts->out, "The problem spec to write (the kernel file goes beside it)");
  command->add_option("--name", opts->name, "The problem's name (default: the kernel's)");
  command->add_option("--build", opts->build, "[deploy] command that rebuilds the program");
  command->add_option("--verify", opts->verify, "[deploy] command that runs the program's own check");
  command->add_flag("--force", opts->force, "Overwrite the spec and the kernel file");
  command->add_option("--cache-dir", opts->cache_dir, "Where the run's logs go (<cache-dir>/<kernel>.init/)");
  command->add_option("--timeout", opts->timeout_s, "Seconds the program may run before it is killed");
  command->add_option("--top-k", opts->top_k, "Configurations kept at most")->check(CLI::Range(1, 1000));
  command->add_option("--coverage", opts->coverage, "Share of the kernel's time to cover (0, 1]");
  command->add_option("--split", opts->split, "p95/p25 ratio above which a geometry splits into fast and slow");
  command->add_option("command", opts->command, "The program and its arguments (after --)");
  command->callback([opts, &result] { result = init(*opts); });
}

// The notes commands (apps/warpforge/cli/calibrate_notes.hpp): one at a time, each with its text; they measure nothing.
void add_calibrate_notes_options(CLI::App& command, calibrate_options& opts) {
  auto* defer = command.add_option("--defer", opts.defer_name, "Set this parameter aside (with --reason, --next-idea)");
  auto* reason = command.add_option("--reason", opts.reason, "Why it is set aside (with --defer)");
  auto* next_idea = command.add_option("--next-idea", opts.next_idea, "What to try when it comes back (with --defer)");
  auto* retry = command.add_option("--retry", opts.retry_name, "End its deferral: the next run measures it again");
  auto* annotate = command.add_option("--annotate", opts.annotate_name, "Add a note (--note) to this parameter");
  auto* note = command.add_option("--note", opts.note, "The note's text (with --annotate)");
  auto* backlog = command.add_option("--backlog", opts.backlog_name, "Add an idea (--idea) to this parameter's backlog");
  auto* idea = command.add_option("--idea", opts.idea, "The idea's text (with --backlog)");
  auto* progress = command.add_flag("--progress", opts.progress,
                                    "Where each parameter stands: passed, failed, deferred, pending (--resume: its results)");
  defer->needs(reason);
  reason->needs(defer);
  next_idea->needs(defer);
  annotate->needs(note);
  note->needs(annotate);
  backlog->needs(idea);
  idea->needs(backlog);
  const std::vector<CLI::Option*> actions{defer, retry, annotate, backlog, progress};
  for (auto* a : actions)
    for (auto* b : actions)
      if (a != b)
        a->excludes(b);
}

void add_calibrate(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<calibrate_options>();
  auto* command = app.add_subcommand(
    "calibrate", "Measure the GPU's hardware parameters with built-in microbenchmarks (reports, simulator configs)");
  command->add_option("--max-priority", opts->max_priority, "Measure priorities 1..P")->check(CLI::Range(1u, 4u));
  command->add_option("--only", opts->only, "Just this parameter (and what it depends on); repeat for several");
  command->add_option("--reset", opts->reset, "Measure this parameter again even if a result stands; repeatable");
  command->add_option("--gpus", opts->gpus, "all, or a comma list of GPU ordinals (default: all, or the recorded)");
  command->add_option("--trials", opts->trials, "Runs per parameter")->check(CLI::Range(1u, 1000u));
  command->add_option("--watchdog", opts->watchdog_s, "Seconds a trial may run before it is killed");
  command->add_option("--arch", opts->arch, "nvcc target for every benchmark (default: each its own, or the GPU's)");
  command->add_option("--run-root", opts->run_root, "Where the run directory is created");
  command->add_option("--resume", opts->resume_dir, "Continue this run directory, keeping its final results");
  command->add_option("--campaign", opts->campaign_path, "A kind = \"calibrate\" campaign file instead of the flags");
  command->add_option("--catalog", opts->catalog_path, "A parameter catalog (TOML) instead of the built-in one");
  command->add_option("--notes", opts->notes_path, "Notes kept across runs (default: <run-root>/calibrate-notes.json)");
  command->add_flag("--check-catalog", opts->check_catalog, "Only check the catalog (exit 1 on a problem)");
  add_calibrate_notes_options(*command, *opts);
  auto flags = std::make_shared<output_flags>();
  add_output_flags(*command, *flags);
  command->callback([opts, flags, &result] {
    result = run_with_output_flags("calibrate", *flags, [&] { return calibrate(*opts); });
  });
}

void add_report(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<report_options>();
  auto* command = app.add_subcommand("report", "Print a campaign's report (md, json or csv), live or after");
  command->add_option(run_dir_names, opts->run_dir, "Run directory")->required();
  auto* format = command->add_option("--format", opts->format,
                                     "md|json|csv|kerneltuner (a Kernel Tuner cache file per job)")
    ->check(CLI::IsMember({"md", "json", "csv", "kerneltuner"}));
  command->add_flag_callback("--json", [opts] { opts->format = "json"; }, "The same as --format json")
    ->excludes(format);
  command->add_flag("--write", opts->write_summary,
                    "Also (re)write summary.md and the SVG charts in the run directory");
  command->callback([opts, &result] { result = report(*opts); });
}

void add_bench(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<bench_options>();
  auto* command = app.add_subcommand("bench", "Check a kernel against its reference and time it on each GPU");
  command->add_option("problem", opts->problem_path, "Problem spec (TOML)")->required();
  command->add_option("--gpus", opts->gpus, "all, or a comma list of GPU ordinals");
  command->add_option("--candidate", opts->candidate_paths,
                      "Also measure this kernel source (same entry); repeat for several");
  command->add_option("--run-root", opts->run_root, "Where the run directory is created");
  command->add_flag("--cold", opts->cold, "Flush L2 before each timed launch");
  command->add_flag("--sanitize", opts->sanitize,
                    "Replay the fastest passing kernel once under compute-sanitizer memcheck; an error makes it incorrect");
  command->add_flag("--json", opts->json, "One JSON object instead of the tables");
  command->add_flag("--quiet", opts->quiet, "Print only warnings and errors besides the tables");
  command->add_option("--watchdog", opts->watchdog_s, "Reply deadline per kernel, seconds (backstop; the runner's own kernel watchdog is 100x the reference, at least 2 s)");
  command->callback([opts, &result] {
    if (opts->quiet)
      enter_quiet_mode();
    result = bench(*opts);
  });
}

void add_diagnose(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<diagnose_options>();
  auto* command = app.add_subcommand(
    "diagnose", "Check, time and profile a kernel on each GPU, then say why it is as fast as it is");
  command->add_option("problem", opts->problem_path, "Problem spec (TOML)")->required();
  command->add_option("--candidate", opts->candidate_path,
                      "Diagnose this kernel source (same entry) instead of the problem's own");
  command->add_option("--gpus", opts->gpus, "all, or a comma list of GPU ordinals");
  command->add_option("--run-root", opts->run_root, "Where the run directory is created");
  command->add_flag("--json", opts->json, "One JSON object instead of the text report");
  auto quiet = std::make_shared<bool>(false);
  command->add_flag("--quiet", *quiet, "Print only warnings and errors besides the report");
  command->callback([opts, quiet, &result] {
    if (*quiet)
      enter_quiet_mode();
    result = diagnose(*opts);
  });
}

void add_doctor(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<doctor_options>();
  auto* command = app.add_subcommand("doctor", "Check GPUs, toolkit, counters, keys and the run directory");
  command->add_flag("--json", opts->json, "Machine-readable output");
  command->add_flag("--require-gpu", opts->require_gpu,
                    "Exit 5 when no GPU is usable (for scripts)");
  command->add_option("--run-root", opts->run_root, "Where run directories are created");
  command->add_option("--campaign", opts->campaign,
                      "A campaign file: ask its [llm] model a one-token question (exit 1 when it does not answer)");
  command->callback([opts, &result] { result = doctor(*opts); });
}

void add_tail(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<tail_options>();
  auto from_seq = std::make_shared<std::uint64_t>(0);
  auto count = std::make_shared<std::uint64_t>(0);
  auto target = std::make_shared<std::string>();
  auto* command = app.add_subcommand("tail", "Watch a campaign live over its ZeroMQ event feed");
  command->add_option("run-dir-or-endpoint", *target,
                      "A run directory (its stored events, then its feed) or a feed endpoint tcp://host:port "
                      "(default: tcp://127.0.0.1:5757)");
  command->add_option("--run-dir", opts->run_dir, "Replay this run's stored events first, then follow its feed");
  command->add_option("--endpoint", opts->endpoint, "Feed endpoint (default: the run directory's)");
  command->add_option("--replay", opts->replay_endpoint,
                      "Replay endpoint (default: the run directory's, else the feed's heartbeats')");
  auto* from_opt = command->add_option("--from-seq", *from_seq,
                                       "Replay events after this sequence number (from the run "
                                       "directory's store, else over the network)");
  command->add_flag("--json", opts->json, "Raw JSON lines, one per event");
  command->add_flag("--log", opts->log, "One readable line per event instead of the live view");
  command->add_option("--topic", opts->topic, "Only events whose type starts with this");
  auto* count_opt = command->add_option("--count", *count, "Stop after this many events");
  command->add_option("--idle-timeout", opts->idle_timeout_s,
                      "Stop after this many seconds without an event");
  command->add_option("--wait-for-feed", opts->feed_answer_wait_s,
                      "Seconds to wait for the feed to answer before saying nothing does (0: for ever)")
    ->check(CLI::NonNegativeNumber);
  command->callback([opts, target, from_seq, count, from_opt, count_opt, &result] {
    split_run_dir_or_endpoint(*target, opts->run_dir, opts->endpoint);
    if (from_opt->count() > 0)
      opts->from_seq = *from_seq;
    if (count_opt->count() > 0)
      opts->count = *count;
    result = tail(*opts);
  });
}

void add_dashboard(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<dashboard_options>();
  auto* command = app.add_subcommand(
    "dashboard", "Serve a live page of a campaign (or a finished one) from its feed and run directory");
  auto target = std::make_shared<std::string>();
  command->add_option("run-dir-or-endpoint", *target,
                      "A run directory (its stored events, then its feed) or a feed endpoint tcp://host:port "
                      "(default: tcp://127.0.0.1:5757)");
  command->add_option("--run-dir", opts->run_dir, "Show this run's stored events first, then follow its feed");
  command->add_option("--endpoint", opts->endpoint, "Feed endpoint (default: the run directory's)");
  command->add_option("--replay", opts->replay_endpoint,
                      "Replay endpoint (default: the run directory's, else the feed's heartbeats')");
  command->add_option("--listen", opts->listen, "host:port to serve the page on (port 0: a free one)");
  command->add_flag("--allow-remote", opts->allow_remote,
                    "Allow a listen address other hosts can reach");
  command->callback([opts, target, &result] {
    split_run_dir_or_endpoint(*target, opts->run_dir, opts->endpoint);
    result = dashboard(*opts);
  });
}

void add_runs(CLI::App& app, exit_code& result) {
  auto opts = std::make_shared<runs_options>();
  auto* command = app.add_subcommand(
    "runs", "List the run directories under a run root (kind, state, start, size); --prune removes old finished ones");
  command->add_option("--root,--run-root", opts->root, "The run root (bench, diagnose, program and calibrate's default)");
  command->add_flag("--json", opts->json, "One JSON object on stdout");
  auto* prune = command->add_flag("--prune", opts->prune,
                                  "Remove finished and failed runs that started before --older-than (never a live "
                                  "or interrupted run, never a folder that is not a run directory)");
  auto* older = command->add_option("--older-than", opts->older_than, "With --prune: an age such as 7d, 12h, 30m, 45s");
  auto* dry_run = command->add_flag("--dry-run", opts->dry_run, "With --prune: show what would go, remove nothing");
  prune->needs(older);
  older->needs(prune);
  dry_run->needs(prune);
  command->callback([opts, &result] { result = runs(*opts); });
}

// A first word that names no command is said as such (CLI11 would only say that a subcommand
// is required), with the commands there are.
std::optional<std::string> unknown_command(CLI::App& app, std::string_view word) {
  std::string commands;
  for (const auto* command : app.get_subcommands({})) {
    if (command->get_name() == word)
      return std::nullopt;
    commands += (commands.empty() ? "" : ", ") + command->get_name();
  }
  return "warpforge: unknown command '" + std::string{word} + "'; the commands are " + commands +
         " (warpforge --help)";
}

} // namespace

int run_command_line(int argc, char** argv) {
  CLI::App app{"warpforge: an unattended, multi-GPU engine that makes CUDA kernels faster and "
               "measures GPUs"};
  // One line each: version, commit, build type, CUDA toolkit, CAF (CLI11 adds the last newline).
  app.set_version_flag("--version", [] {
    auto text = version_text();
    text.pop_back();
    return text;
  });
  app.require_subcommand(1);
  app.failure_message(CLI::FailureMessage::help);
  app.option_defaults()->always_capture_default(); // --help shows each option's default

  exit_code result = exit_code::ok;
  add_run(app, result);
  add_resume(app, result);
  add_status(app, result);
  add_stop(app, result);
  add_program(app, result);
  add_calibrate(app, result);
  add_observe(app, result, std::find(argv, argv + argc, std::string_view{"--"}) != argv + argc);
  add_init(app, result, std::find(argv, argv + argc, std::string_view{"--"}) != argv + argc);
  add_deploy(app, result);
  add_report(app, result);
  add_bench(app, result);
  add_diagnose(app, result);
  add_doctor(app, result);
  add_tail(app, result);
  add_dashboard(app, result);
  add_runs(app, result);
  add_host(app, result);
  // Build time only (cmake/WarpforgeShellDocs.cmake): the completions and the man page, written
  // from the definition above; not in --help.
  if (argc == 4 && argv[1] == generate_shell_docs_option)
    return to_int(write_shell_doc(describe_command_line(app), argv[2], argv[3]));

  // Bare `warpforge`: the list of commands, as a first step for someone new (not an error).
  if (argc <= 1) {
    app.name("warpforge");
    std::cout << app.help();
    return to_int(exit_code::ok);
  }
  if (argv[1][0] != '-')
    if (auto unknown = unknown_command(app, argv[1])) {
      std::cerr << *unknown << '\n';
      return to_int(exit_code::usage);
    }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : to_int(exit_code::usage);
  }
  return to_int(result);
}

} // namespace warpforge::cli
