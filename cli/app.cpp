#include "cli/app.hpp"

#include "cli/commands.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

namespace warpforge::cli {
namespace {

constexpr auto version = "0.1.0";

} // namespace

int run_command_line(int argc, char** argv) {
  CLI::App app{"warpforge: an unattended, multi-GPU engine that makes CUDA kernels faster and "
               "measures GPUs"};
  app.set_version_flag("--version", version);
  app.require_subcommand(1);
  app.failure_message(CLI::FailureMessage::help);

  exit_code result = exit_code::ok;

  run_options run_opts;
  auto* run_cmd = app.add_subcommand("run", "Run a campaign (optimize or microbench) from its spec");
  // No CLI11 existence check: the spec loader reports a missing file as bad input (exit 3).
  run_cmd->add_option("campaign", run_opts.campaign_path, "Campaign spec (TOML)")->required();
  run_cmd->add_option("--log-level", run_opts.log_level,
                      "trace|debug|info|warn|error (overrides the spec's [log] level)");
  run_cmd->add_option("--wait-subscribers", run_opts.wait_subscribers_s,
                      "Seconds to wait for a feed subscriber before the first event");
  run_cmd->callback([&] { result = run(run_opts); });

  resume_options resume_opts;
  auto* resume_cmd = app.add_subcommand("resume", "Continue an interrupted campaign from its run directory");
  resume_cmd->add_option("run-dir", resume_opts.run_dir, "Run directory")->required();
  resume_cmd->add_option("--log-level", resume_opts.log_level, "trace|debug|info|warn|error");
  resume_cmd->callback([&] { result = resume(resume_opts); });

  status_options status_opts;
  auto* status_cmd = app.add_subcommand("status", "Show a campaign's progress from its run directory");
  status_cmd->add_option("run-dir", status_opts.run_dir, "Run directory")->required();
  status_cmd->add_flag("--json", status_opts.json, "Machine-readable output");
  status_cmd->callback([&] { result = status(status_opts); });

  program_options program_opts;
  auto* program_cmd = app.add_subcommand(
    "program", "Build a whole benchmark program with nvcc and run it N times per GPU, reading RESULT lines");
  program_cmd->add_option("source", program_opts.source_path, "The program (.cu with main())")->required();
  program_cmd->add_option("--gpus", program_opts.gpus, "all, or a comma list of GPU ordinals");
  program_cmd->add_option("--trials", program_opts.trials, "Runs per GPU")->check(CLI::Range(1u, 1000u));
  program_cmd->add_option("--watchdog", program_opts.watchdog_s, "Seconds a trial may run before it is killed");
  program_cmd->add_option("--arch", program_opts.arch, "nvcc target, e.g. sm_90a (default: the GPU's)");
  program_cmd->add_option("--run-root", program_opts.run_root, "Where the run directory is created");
  program_cmd->add_option("args", program_opts.arguments, "Arguments for the program (after --)");
  program_cmd->callback([&] { result = program(program_opts); });

  report_options report_opts;
  auto* report_cmd = app.add_subcommand("report", "Print a campaign's report (md, json or csv), live or after");
  report_cmd->add_option("run-dir", report_opts.run_dir, "Run directory")->required();
  report_cmd->add_option("--format", report_opts.format, "md|json|csv")
    ->check(CLI::IsMember({"md", "json", "csv"}));
  report_cmd->add_flag("--write", report_opts.write_summary,
                       "Also (re)write summary.md and the SVG charts in the run directory");
  report_cmd->callback([&] { result = report(report_opts); });

  bench_options bench_opts;
  auto* bench_cmd = app.add_subcommand("bench", "Check a kernel against its reference and time it on each GPU");
  bench_cmd->add_option("problem", bench_opts.problem_path, "Problem spec (TOML)")->required();
  bench_cmd->add_option("--gpus", bench_opts.gpus, "all, or a comma list of GPU ordinals");
  bench_cmd->add_option("--candidate", bench_opts.candidate_paths,
                        "Also measure this kernel source (same entry); repeat for several");
  bench_cmd->add_option("--run-root", bench_opts.run_root, "Where the run directory is created");
  bench_cmd->add_flag("--cold", bench_opts.cold, "Flush L2 before each timed launch");
  bench_cmd->add_option("--watchdog", bench_opts.watchdog_s, "Reply deadline per kernel, seconds (backstop; the runner's own kernel watchdog is 100x the reference, at least 2 s)");
  bench_cmd->callback([&] { result = bench(bench_opts); });

  diagnose_options diagnose_opts;
  auto* diagnose_cmd = app.add_subcommand(
    "diagnose", "Check, time and profile a kernel on each GPU, then say why it is as fast as it is");
  diagnose_cmd->add_option("problem", diagnose_opts.problem_path, "Problem spec (TOML)")->required();
  diagnose_cmd->add_option("--candidate", diagnose_opts.candidate_path,
                           "Diagnose this kernel source (same entry) instead of the problem's own");
  diagnose_cmd->add_option("--gpus", diagnose_opts.gpus, "all, or a comma list of GPU ordinals");
  diagnose_cmd->add_option("--run-root", diagnose_opts.run_root, "Where the run directory is created");
  diagnose_cmd->add_flag("--json", diagnose_opts.json, "One JSON object instead of the text report");
  diagnose_cmd->callback([&] { result = diagnose(diagnose_opts); });

  doctor_options doctor_opts;
  auto* doctor_cmd = app.add_subcommand("doctor", "Check GPUs, toolkit, counters, keys and the run directory");
  doctor_cmd->add_flag("--json", doctor_opts.json, "Machine-readable output");
  doctor_cmd->add_flag("--require-gpu", doctor_opts.require_gpu,
                       "Exit 5 when no GPU is usable (for scripts)");
  doctor_cmd->add_option("--run-root", doctor_opts.run_root, "Where run directories are created");
  doctor_cmd->callback([&] { result = doctor(doctor_opts); });

  tail_options tail_opts;
  std::uint64_t from_seq = 0;
  std::uint64_t count = 0;
  auto* tail_cmd = app.add_subcommand("tail", "Watch a campaign live over its ZeroMQ event feed");
  tail_cmd->add_option("endpoint", tail_opts.endpoint,
                       "Feed endpoint (default: the run directory's, else tcp://127.0.0.1:5757)");
  tail_cmd->add_option("--run-dir", tail_opts.run_dir, "Replay this run's stored events first");
  auto* from_opt = tail_cmd->add_option("--from-seq", from_seq,
                                        "Replay stored events after this sequence number");
  tail_cmd->add_flag("--json", tail_opts.json, "Raw JSON lines, one per event");
  tail_cmd->add_flag("--log", tail_opts.log, "One readable line per event instead of the live view");
  tail_cmd->add_option("--topic", tail_opts.topic, "Only events whose type starts with this");
  auto* count_opt = tail_cmd->add_option("--count", count, "Stop after this many events");
  tail_cmd->add_option("--idle-timeout", tail_opts.idle_timeout_s,
                       "Stop after this many seconds without an event");
  tail_cmd->callback([&] {
    if (from_opt->count() > 0)
      tail_opts.from_seq = from_seq;
    if (count_opt->count() > 0)
      tail_opts.count = count;
    result = tail(tail_opts);
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : to_int(exit_code::usage);
  }
  return to_int(result);
}

} // namespace warpforge::cli
