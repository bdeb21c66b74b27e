#pragma once
// The campaign spec: which problems to optimise, on which GPUs, with which proposer and budget,
// where to publish events and how to supervise. Read from TOML and validated up front, including
// every job's problem spec (docs/specs.md is the reference of every field).
//
//   auto campaign = load_campaign("examples/quickstart.toml");
//   if (!campaign) for (auto& e : campaign.error()) log(to_string(e));

#include "config/defaults.hpp"
#include "config/hosts_spec.hpp"
#include "config/problem_spec.hpp"
#include "config/toml_reader/placed_error.hpp"
#include "config/supervision_policy.hpp"
#include "foundation/expected/expected.hpp"
#include "feed/defaults.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::config {

enum class proposer_kind : std::uint8_t {
  tune,   // the built-in search tuner over the problem's tunables
  llm,    // an LLM writes the variants (needs [llm])
  replay, // replays the candidates recorded in an earlier run (needs replay_from)
};
std::string_view to_string(proposer_kind kind);
std::optional<proposer_kind> proposer_kind_from_string(std::string_view text);
inline constexpr proposer_kind all_proposer_kinds[] = {proposer_kind::tune, proposer_kind::llm,
                                                       proposer_kind::replay};

enum class search_strategy : std::uint8_t {
  exhaustive, // every point that satisfies the constraints, in order
  random,     // uniform samples without repetition
  annealing,  // simulated annealing from the default point
};
std::string_view to_string(search_strategy strategy);
std::optional<search_strategy> search_strategy_from_string(std::string_view text);
inline constexpr search_strategy all_search_strategies[] = {
  search_strategy::exhaustive, search_strategy::random, search_strategy::annealing};

enum class llm_provider : std::uint8_t {
  anthropic, // Anthropic Messages API
  openai,    // OpenAI-compatible chat completions
};
std::string_view to_string(llm_provider provider);
std::optional<llm_provider> llm_provider_from_string(std::string_view text);
inline constexpr llm_provider all_llm_providers[] = {llm_provider::anthropic, llm_provider::openai};

enum class log_level : std::uint8_t { trace, debug, info, warn, error };
std::string_view to_string(log_level level);
std::optional<log_level> log_level_from_string(std::string_view text);
inline constexpr log_level all_log_levels[] = {log_level::trace, log_level::debug, log_level::info,
                                               log_level::warn, log_level::error};

enum class gpu_selection_kind : std::uint8_t {
  all,    // every GPU the host has
  listed, // only the ordinals listed
};
std::string_view to_string(gpu_selection_kind kind);
std::optional<gpu_selection_kind> gpu_selection_kind_from_string(std::string_view text);
inline constexpr gpu_selection_kind all_gpu_selection_kinds[] = {gpu_selection_kind::all,
                                                                 gpu_selection_kind::listed};

/// [profile] tool: who reads a profile's hardware counters (docs/measurement.md, "Metrics").
enum class profile_tool : std::uint8_t {
  cupti, // the runner's CUPTI and the CUBIN, in the process that races; Nsight Compute only when
         // CUPTI cannot profile at all (counters restricted, not supported, failed)
  ncu,   // Nsight Compute's CLI for every profile (~2 s of start-up each; a fallback by choice)
};
std::string_view to_string(profile_tool tool);
std::optional<profile_tool> profile_tool_from_string(std::string_view text);
inline constexpr profile_tool all_profile_tools[] = {profile_tool::cupti, profile_tool::ncu};

/// [profile] champions: which of a job's bests are profiled. A profile costs a GPU about as much
/// as a race (and the host's GPUs take profiles in turn), so a campaign profiles what is read.
enum class champion_profiles : std::uint8_t {
  each,  // the baseline and every new champion, before the next proposal: the diagnosis goes to
         // the proposer and near-peak can stop the job (the LLM proposer's default)
  final, // the job's best once, when it stops: for the report and the feed; no near-peak stop
         // (the tuner's default: it reads no diagnosis)
  none,  // no profile: times only (a throughput sweep); the report has no diagnosis
};
std::string_view to_string(champion_profiles profiles);
std::optional<champion_profiles> champion_profiles_from_string(std::string_view text);
inline constexpr champion_profiles all_champion_profiles[] = {champion_profiles::each, champion_profiles::final,
                                                             champion_profiles::none};

enum class campaign_kind : std::uint8_t {
  optimize,  // make the jobs' kernels faster (the default)
  calibrate, // measure the GPU's hardware parameters (docs/calibrate.md); [calibrate], no jobs
};
std::string_view to_string(campaign_kind kind);
std::optional<campaign_kind> campaign_kind_from_string(std::string_view text);
inline constexpr campaign_kind all_campaign_kinds[] = {campaign_kind::optimize, campaign_kind::calibrate};

struct gpu_selection {
  gpu_selection_kind kind = gpu_selection_kind::all;
  std::vector<std::uint32_t> ordinals; // listed: CUDA device ordinals, distinct, non-empty
  toml_reader::place place;            // where `gpus` was written (line 0: not written, all)

  bool operator==(const gpu_selection&) const = default;
};

struct job_spec {
  std::string name;                  // unique in the campaign; default: the problem's name
  std::filesystem::path problem_path; // resolved against the campaign file's folder
  problem_spec problem;              // loaded and validated
  toml_reader::place place;          // of the [[jobs]] entry

  bool operator==(const job_spec&) const = default;
};

struct budget_spec {
  std::uint32_t iterations = defaults::iterations;    // optimisation iterations per job, >= 1
  std::uint32_t branches = defaults::branches;        // K: candidates per iteration, >= 1
  double wall_time_s = defaults::wall_time_s;         // seconds for the whole campaign, > 0
  std::uint32_t patience = defaults::patience;        // iterations without gain before stopping
  double noise_threshold = defaults::noise_threshold; // relative (0.02 = 2%), in [0, 1)

  bool operator==(const budget_spec&) const = default;
};

struct proposer_spec {
  proposer_kind kind = proposer_kind::tune;
  search_strategy strategy = search_strategy::annealing; // tune only
  std::uint64_t seed = defaults::seed;                    // tuner and input generation
  std::optional<std::uint64_t> max_evaluations; // cap on candidates measured per job; none = budget
  std::filesystem::path replay_from;            // replay: the earlier run's directory

  bool operator==(const proposer_spec&) const = default;
};

struct llm_spec {
  llm_provider provider = llm_provider::anthropic;
  std::string model;                   // as the provider names it
  std::string api_key_env;             // NAME of the environment variable holding the key
  std::optional<std::string> base_url; // http(s)://...; none = the provider's public endpoint
  std::uint32_t max_tokens = 16384;    // per reply; a reply cut there is continued
  std::optional<double> temperature;   // none: the provider's default
  std::uint32_t max_concurrent = 4;    // requests in flight to the provider, all jobs together
  std::uint32_t max_reasks = 2;        // re-asks for a reply that breaks the envelope's rules
  std::uint32_t max_fix_tries = 2;     // per variant: compile-fix tries, and correctness-fix tries
  std::optional<double> budget_usd;    // the campaign's LLM spend; none: unlimited
  std::optional<std::int64_t> budget_tokens; // the campaign's LLM tokens; none: unlimited
  bool judge = true;                   // ask for two cited bottlenecks before each proposal
  std::string compaction_model;        // a cheaper model for memory compaction; empty: `model`
  std::uint32_t compaction_threshold_chars = 12000; // a job's rendered memory past this is compacted
  double first_byte_timeout_s = 180;   // seconds until the reply starts
  double total_timeout_s = 900;        // seconds for one request, retries excluded
  std::uint32_t max_attempts = 6;      // tries per request (429, 5xx, overloaded, network)

  bool operator==(const llm_spec&) const = default;
};

struct feed_spec {
  std::string endpoint{feed::default_endpoint}; // ZeroMQ endpoint the PUB binds
  bool allow_remote = false;                    // permit a non-loopback endpoint
  std::uint32_t high_water_mark = feed::default_high_water_mark; // messages per subscriber, > 0

  bool operator==(const feed_spec&) const = default;
};

/// [calibrate]: what a calibrate campaign measures and how (docs/calibrate.md). The defaults are
/// the engine's (calibrate/engine/run_options.hpp); names are checked against the catalog when
/// the run starts (config does not know the catalog).
struct calibrate_spec {
  std::uint32_t max_priority = 3;    // priorities 1..max_priority (1..4); 4 has no built-in benchmarks
  std::vector<std::string> only;     // non-empty: just these parameters and what they depend on
  std::vector<std::string> reset;    // measure these again even if an earlier result stands
  std::uint32_t trials = 10;         // process runs per parameter, >= 1
  double trial_watchdog_s = 60;      // seconds one trial may run before it is killed (TIMEOUT)
  std::string arch;                  // nvcc arch for every benchmark; empty: each its own / the GPU's
  std::filesystem::path catalog;     // a catalog file instead of the built-in one; empty: built in
  std::filesystem::path notes;       // the notes kept across runs; empty: <run_root>/calibrate-notes.json

  bool operator==(const calibrate_spec&) const = default;
};

struct campaign_spec {
  std::string file;     // the campaign file as given
  std::string raw_text; // the TOML exactly as read (the store records it)
  std::string name;
  campaign_kind kind = campaign_kind::optimize;
  std::filesystem::path run_root; // resolved against the campaign file's folder
  std::uint32_t run_dir_mode = 0700; // permission bits of each new run directory (owner rwx always)
  std::vector<job_spec> jobs;     // optimize: non-empty, in file order; calibrate: empty
  calibrate_spec calibrate;       // calibrate campaigns only
  gpu_selection gpus;
  budget_spec budget;
  proposer_spec proposer;
  std::optional<llm_spec> llm; // required when proposer.kind is llm
  feed_spec feed;
  log_level log = log_level::info;
  supervision_policy supervision;
  bool sanitize_champion = false; // [verify] sanitize: a champion runs once under
                                  // compute-sanitizer memcheck before it is crowned (slow)
  profile_tool profiler = profile_tool::cupti; // [profile] tool
  std::optional<champion_profiles> profiled_champions; // [profile] champions; unset: by the
                                                       // proposer (profiled_champions_of)
  bool deploy_at_end = false; // [deploy] at_end: a finished campaign deploys every job whose
                              // problem declares [deploy] (docs/observe-deploy.md)
  hosts_spec hosts; // [hosts]: GPU hosts already running, or submitted to Slurm; none: this
                    // machine's GPUs only (docs/hosts.md)

  bool operator==(const campaign_spec&) const = default;
};

/// [profile] champions as given, else `each` for a proposer that reads the diagnosis (llm, and
/// replay, which rebuilds the same prompts) and `final` for the tuner, which reads none.
champion_profiles profiled_champions_of(const campaign_spec& spec);

/// Why `name` cannot name a job, or nullopt when it can: 1 to defaults::max_job_name_chars
/// characters from [A-Za-z0-9_.-], not starting with '.' or '-' (it becomes a folder of the run).
std::optional<std::string> job_name_problem(std::string_view name);

/// Reads and validates the campaign at `path` and every problem spec its jobs name.
expected<campaign_spec, toml_reader::placed_errors>
load_campaign(const std::filesystem::path& path);

/// Validates `text` as if read from `file` (used in errors; its folder resolves relative paths).
expected<campaign_spec, toml_reader::placed_errors>
parse_campaign(std::string_view text, const std::filesystem::path& file);

} // namespace warpforge::config
