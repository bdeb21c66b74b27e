#pragma once
// A campaign as the pipeline runs it: what it does with its jobs (optimize, bench, diagnose), what
// it runs on, and how it ended. The campaign actor and the scheduler carry these (messages/
// campaign.hpp gives them an inspect); the campaign engine (campaign_engine.hpp) runs one.

#include "config/campaign_spec.hpp"
#include "gpu/device_report.hpp"
#include "gpu/runner/warm_up_level.hpp"
#include "foundation/vocabulary/timing_mode.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::pipeline {

/// What a campaign does with its jobs.
enum class campaign_mode : std::uint8_t {
  optimize, // per job: baseline, then iterations of proposals, races, elections, ablations
  bench,    // per job: the problem's kernel and the given candidates, checked and timed on every GPU
  diagnose, // per job: the kernel checked, timed, profiled and diagnosed on every GPU
};
std::string_view to_string(campaign_mode mode);

/// What a campaign's runners open before their first request (gpu/runner/warm_up_level.hpp):
/// nothing for bench (no profile, and its first race may as well open the device), the device
/// where profiles come late or never ([profile] champions = "final" or "none": the first profile
/// opens CUPTI), else the profiler too.
gpu::warm_up_level runner_warm_up(campaign_mode mode, const config::campaign_spec& spec);

/// Everything a campaign engine needs besides its jobs' problems.
struct campaign_setup {
  config::campaign_spec spec;                   // budget, proposer, seed, jobs
  std::filesystem::path run_dir;
  campaign_mode mode = campaign_mode::optimize;
  std::vector<std::filesystem::path> candidates; // bench, diagnose: kernels besides the problem's own
  vocabulary::timing_mode timing = vocabulary::timing_mode::warm;
  std::vector<gpu::device_info> gpus;           // with a worker each; empty: no GPU here
  std::string why_no_gpu;                       // when `gpus` is empty
  std::vector<std::int64_t> job_ids;            // the jobs' rows, in spec order
  std::filesystem::path tuner_cache;            // the cross-run result cache; empty: none
};

enum class campaign_result_kind : std::uint8_t { finished, failed, interrupted };

/// Where one GPU's wall time went, in seconds since the campaign started (docs/report.md,
/// "Throughput"): the GPU executing kernels (busy), its worker on profiles, its worker on races
/// beyond their kernels (set-up: loads, inputs, checks, the round trip), idle while a compile it
/// could have raced was still running, and idle otherwise (no work ready: proposals, elections,
/// the job's end). wall = occupied + waited_for_compile + idle;
/// occupied = kernel + profile + the races' set-up.
struct gpu_usage {
  int ordinal = -1;
  double kernel_s = 0;             // kernel execution reported by the runner (timed and warm-up)
  double occupied_s = 0;           // the worker on races and profiles (kernel_s included)
  double profile_s = 0;            // the worker on profiles (part of occupied_s)
  double waited_for_compile_s = 0; // idle after the first measurement while compiles ran
  std::uint64_t races = 0;
  std::uint64_t profiles = 0;
  std::uint64_t measured = 0;      // candidates measured here (docs/report.md: a branch the GPU
                                   // gave a verdict in a race; the incumbent yardstick is not one)
  friend bool operator==(const gpu_usage&, const gpu_usage&) = default;
};

struct campaign_result {
  std::string name;
  campaign_result_kind kind = campaign_result_kind::finished;
  std::string reason;            // why it failed or stopped; empty when finished
  double wall_s = 0;             // seconds the campaign ran
  double gpu_busy_fraction = 0;  // kernel execution time on the GPUs / (wall time x GPUs)
  double worker_occupancy = 0;   // time the GPU workers spent on requests / (wall time x GPUs)
  double gpu_wait_for_compile_s = 0; // seconds GPUs sat idle while kernels were compiling, after
                                     // the first measurement, summed over GPUs
  std::uint64_t measured = 0;    // candidates measured, all GPUs (gpu_usage::measured)
  std::uint64_t compiled = 0;    // kernels built (cache hits included)
  std::vector<gpu_usage> gpus;   // per GPU, in the campaign's order (the fractions above sum them)
  friend bool operator==(const campaign_result&, const campaign_result&) = default;
};

} // namespace warpforge::pipeline
