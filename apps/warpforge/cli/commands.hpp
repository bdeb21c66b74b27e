#pragma once
// One function per `warpforge` command, each taking its parsed options as a struct so it can be
// called (and tested) without the command line.

#include "apps/warpforge/cli/defaults.hpp"
#include "apps/warpforge/cli/exit_codes.hpp"
#include "feed/dashboard/http_server.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::config {
struct campaign_spec;
}

namespace warpforge::cli {

struct doctor_options {
  bool json = false;          // machine-readable output
  bool require_gpu = false;   // exit no_gpu when no GPU is usable
  std::string run_root = "runs"; // where run directories would be created
  double runner_timeout_s = 60; // seconds to wait for warpforge-runner's device report
  std::string campaign;       // a campaign file: its [llm] model is asked a one-token question
};
exit_code doctor(const doctor_options& options);

struct status_options {
  std::string run_dir;
  bool json = false;
};
exit_code status(const status_options& options);

struct stop_options {
  std::string run_dir;
  double wait_s = 60; // how long the campaign's process may take to record its end
};
/// Ends the run's campaign as Ctrl-C would (SIGINT to the process holding the run directory),
/// then cancels the run's Slurm job still on record (apps/warpforge/cli/stop.cpp).
exit_code stop(const stop_options& options);

struct tail_options {
  std::string endpoint;                 // empty: the run directory's feed, else the default
  std::string replay_endpoint;          // empty: the run directory's, else the feed's heartbeats'
  std::string run_dir;                  // replay from this run's store before going live
  std::optional<std::uint64_t> from_seq; // replay events with seq > this: from the run
                                         // directory's store, else over the network
  bool json = false;                    // raw JSON lines instead of the live view
  bool log = false;                     // one human line per event instead of the live view
  std::string topic;                    // ZeroMQ topic prefix filter ("branch_")
  std::optional<std::uint64_t> count;   // stop after this many events (scripts, tests)
  double idle_timeout_s = 0;            // stop after this long without an event; 0: never
  double feed_answer_wait_s = std::chrono::duration<double>(feed_answer_wait).count();
                                        // say that nothing answers at the endpoint after this
                                        // long without an event or heartbeat; 0: wait for ever
};
exit_code tail(const tail_options& options);

struct dashboard_options {
  std::string endpoint;                // the feed to follow; empty: the run directory's, else the default
  std::string replay_endpoint;         // empty: the run directory's, else learnt from heartbeats
  std::string run_dir;                 // show this run's stored events first (live or finished)
  std::string listen{dashboard::default_listen}; // host:port the page is served on
  bool allow_remote = false;           // permit a listen address other hosts can reach
};
exit_code dashboard(const dashboard_options& options);

struct run_options {
  std::string campaign_path;
  std::string log_level;      // overrides the spec's [log] level when set
  double wait_subscribers_s = 0; // hold events until a monitor subscribes, at most this long
  bool quiet = false;         // no progress on the terminal (feed/progress_display.hpp)
  std::vector<std::string> hosts; // `warpforge host --listen` addresses: their GPUs, not this machine's
  std::string hosts_listen;   // [ADDR:]PORT where `warpforge host --coordinator` processes call back
  std::string credential;     // the hosts' campaign credential (docs/hosts.md)
  double hosts_wait_s = 120;  // how long to wait for the hosts before the campaign starts
};
exit_code run(const run_options& options);

struct host_options {
  std::string credential;     // the campaign's credential folder (ca.pem, member.pem, member.key)
  std::string listen;         // [ADDR:]PORT: wait for the coordinator here (ADDR default 127.0.0.1)
  std::string coordinator;    // HOST:PORT: call back the coordinator there (Slurm)
  std::string gpus = "all";   // "all" or a comma list of this node's ordinals
  std::string runner;         // the runner executable; empty: as `warpforge run` finds it
  std::string work_dir;       // where the CUBINs compiled here go; empty: a temporary folder
  std::string new_credential; // make a campaign credential in this folder and exit
};
exit_code host(const host_options& options);

struct resume_options {
  std::string run_dir;
  std::string log_level; // overrides the spec's [log] level when set
  bool quiet = false;    // no progress on the terminal
  std::vector<std::string> hosts; // as run_options: GPU hosts (docs/hosts.md)
  std::string hosts_listen;
  std::string credential;
  double hosts_wait_s = 120;
};
exit_code resume(const resume_options& options);

struct bench_options {
  std::string problem_path;
  std::string gpus = "all";       // "all" or a comma list of ordinals
  std::vector<std::string> candidate_paths; // kernels to measure beside the problem's own
  std::string run_root = "runs";  // where the bench's run directory goes
  bool cold = false;              // flush L2 before each sample
  bool sanitize = false;          // the fastest kernel that passed replays once under
                                  // compute-sanitizer memcheck before it is reported (slow)
  double watchdog_s = 120;        // reply deadline per kernel, seconds: the backstop behind the
                                  // runner's kernel watchdog (100x the reference, at least 2 s)
  std::chrono::milliseconds lock_timeout{600'000}; // wait this long for a GPU another process holds
  bool quiet = false;             // no progress on the terminal
  bool json = false;              // one JSON object on stdout instead of the tables (implies quiet)
};
exit_code bench(const bench_options& options);

struct diagnose_options {
  std::string problem_path;
  std::string candidate_path;     // diagnose this kernel source (same entry) instead of the
                                  // problem's own; empty: the problem's kernel
  std::string gpus = "all";       // "all" or a comma list of ordinals
  std::string run_root = "runs";  // where the run directory goes
  bool json = false;              // one JSON object on stdout instead of the text report
  double watchdog_s = 120;        // reply deadline of the check and timing, seconds (as bench's)
  std::chrono::milliseconds lock_timeout{600'000}; // wait this long for a GPU another process holds
};
exit_code diagnose(const diagnose_options& options);

struct program_options {
  std::string source_path;              // a whole .cu with main()
  std::vector<std::string> arguments;   // passed to the program (after --)
  std::string gpus = "all";             // "all" or a comma list of ordinals
  std::uint32_t trials = 3;             // runs per GPU
  double watchdog_s = 60;               // per trial, seconds: past it the program is killed
  std::string arch;                     // nvcc's -arch; empty: the first chosen GPU's
  std::string run_root = "runs";
  std::chrono::milliseconds lock_timeout{600'000};
  bool json = false;                    // one JSON object on stdout instead of the table
};
exit_code program(const program_options& options);

struct observe_options {
  std::vector<std::string> command;     // the program and its arguments (after --)
  bool separator_given = false;         // `--` was on the command line (the program follows it)
  std::string kernel;                   // "" = every kernel
  std::string method = "auto";          // auto | cupti | ncu
  std::string cache_dir = ".warpforge-observe"; // <kernel or all>.observed.json goes here
  bool fresh = false;                   // observe again even when the cache's signature holds
  std::vector<std::string> sources;     // files whose bytes join the signature (the kernel's source)
  std::size_t top_k = 5;                // configurations kept at most
  double coverage = 0.9;                // share of the kernel's time to cover, 1.0 = 100%
  double split = 2.5;                   // p95/p25 above which a geometry splits into fast/slow
  std::string problem_path;             // write this problem's configs file from the observation
  std::string configs_out;              // "" = <problem dir>/<kernel or entry>.configs.toml
  double timeout_s = 600;               // seconds the program may run; then it is killed
  bool json = false;                    // one JSON object on stdout instead of the table
};
exit_code observe(const observe_options& options);

struct init_options {
  std::vector<std::string> command;     // the program and its arguments (after --)
  bool separator_given = false;         // `--` was on the command line
  std::string kernel;                   // required: the kernel (name, template-id or symbol)
  std::string source;                   // its source file; "" = from the program's line info
  std::string out = "problem.toml";     // the spec to write (the kernel file goes beside it)
  std::string name;                     // the problem's name; "" = the kernel's base name
  std::string build;                    // [deploy] build command; "" = [deploy] commented out
  std::string verify;                   // [deploy] verify command
  bool force = false;                   // overwrite the spec and kernel file
  std::string cache_dir = ".warpforge-observe"; // the run's logs go to <cache-dir>/<kernel>.init/
  double timeout_s = 600;               // seconds the program may run; then it is killed
  std::size_t top_k = 5;                // configurations kept at most (as observe's)
  double coverage = 0.9;                // share of the kernel's time to cover
  double split = 2.5;                   // p95/p25 above which a geometry splits
};
exit_code init(const init_options& options);

struct deploy_options {
  std::string run_dir;       // a finished run
  std::string job;           // "" = the only job whose problem declares [deploy]
  std::string source;        // "" = the job's champion; else a kernel file a person chose
  bool recover = false;      // put back the original an unfinished deploy left
  std::string feed_endpoint; // "" = the campaign's [feed]
  bool json = false;
};
exit_code deploy(const deploy_options& options);

struct calibrate_options {
  std::uint32_t max_priority = 3;       // measure priorities 1..P (4 has no built-in benchmarks)
  std::vector<std::string> only;        // just these parameters (and what they depend on)
  std::vector<std::string> reset;       // measure these again even if a result stands
  std::string gpus;                     // "all" or a comma list of ordinals; empty: the spec's (all)
  std::uint32_t trials = 10;            // process runs per parameter
  double watchdog_s = 60;               // per trial, seconds: past it the benchmark is killed (TIMEOUT)
  std::string arch;                     // nvcc arch for every benchmark; empty: each its own / the GPU's
  std::string run_root = "runs";        // where the run directory is created
  std::string resume_dir;               // continue this run directory (its recorded options)
  std::string campaign_path;            // a kind = "calibrate" campaign file instead of the flags
  std::string catalog_path;             // a catalog file instead of the built-in one
  std::string notes_path;               // notes kept across runs; empty: <run_root>/calibrate-notes.json
  bool check_catalog = false;           // only run the catalog's self-check (exit 1 on a problem)
  // Notes commands: each edits or reads the notes file and exits without measuring anything.
  std::string defer_name;               // --defer: set this parameter aside (with reason, next_idea)
  std::string reason;                   // --reason: why it is set aside
  std::string next_idea;                // --next-idea: what to try when it comes back
  std::string retry_name;               // --retry: end its deferral; measure it again next run
  std::string annotate_name;            // --annotate: add `note` to this parameter
  std::string note;                     // --note
  std::string backlog_name;             // --backlog: add `idea` to this parameter's ideas
  std::string idea;                     // --idea
  bool progress = false;                // --progress: where each parameter stands (with --resume,
                                        // from that run's results.json too)
  std::chrono::milliseconds lock_timeout{600'000}; // wait this long for a GPU another process holds
};
exit_code calibrate(const calibrate_options& options);
/// A validated kind = "calibrate" campaign (what `warpforge run` hands such a spec to); `gpus`
/// overrides the spec's when not empty.
exit_code calibrate_campaign(const config::campaign_spec& spec, const std::string& spec_path,
                             const std::string& gpus = "");

struct report_options {
  std::string run_dir;
  std::string format = "md";  // md | json | csv, on stdout
  bool write_summary = false; // also write summary.md and the charts into the run directory
};
exit_code report(const report_options& options);

} // namespace warpforge::cli
