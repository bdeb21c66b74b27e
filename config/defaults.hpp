#pragma once
// Every default and limit of the problem and campaign specs, named, with its unit.
// docs/specs.md quotes these values; change both together.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warpforge::config::defaults {

// --- launch limits (CUDA, identical on every architecture since sm_30) ---------------------------
inline constexpr std::uint64_t max_threads_per_block = 1024; // threads, product of block x*y*z
inline constexpr std::uint64_t max_block_x = 1024;           // threads
inline constexpr std::uint64_t max_block_y = 1024;           // threads
inline constexpr std::uint64_t max_block_z = 64;             // threads
inline constexpr std::uint64_t max_grid_x = 2147483647;      // blocks (2^31 - 1)
inline constexpr std::uint64_t max_grid_y = 65535;           // blocks
inline constexpr std::uint64_t max_grid_z = 65535;           // blocks
inline constexpr std::uint64_t dynamic_smem_bytes = 0;       // bytes of dynamic shared memory
inline constexpr std::size_t max_launch_dimensions = 3;      // entries of `grid` / `block`

// --- buffer initialisation (the runner draws inputs from these, seeded) ---------------------------
inline constexpr double uniform_low = -1.0;  // lower bound of `uniform`, inclusive
inline constexpr double uniform_high = 1.0;  // upper bound of `uniform`, exclusive
inline constexpr double normal_mean = 0.0;   // mean of `normal`
inline constexpr double normal_stddev = 1.0; // standard deviation of `normal`

// --- correctness tolerances: |got - want| <= atol + rtol * |want|, per output dtype ---------------
inline constexpr double rtol_f16 = 1e-2;  // relative, 1.0 = 100%
inline constexpr double atol_f16 = 1e-3;  // absolute, in the output's unit
inline constexpr double rtol_bf16 = 2e-2; // relative
inline constexpr double atol_bf16 = 1e-2; // absolute
inline constexpr double rtol_f32 = 1e-5;  // relative
inline constexpr double atol_f32 = 1e-6;  // absolute
inline constexpr double rtol_f64 = 1e-12; // relative
inline constexpr double atol_f64 = 1e-14; // absolute
inline constexpr double rtol_integer = 0.0; // integers compare exactly
inline constexpr double atol_integer = 0.0;

// --- tunables and the search space (bounds on what a spec may ask for) ---------------------------
// A value list is checked for duplicates in O(n) and the grid is mixed-radix ordinals, so these are
// not speed limits of the loader: they keep a typo (a range with a tiny step, a generated list run
// wild) from becoming a campaign that can never be searched, and a spec's memory bounded.
inline constexpr std::size_t max_tunable_values = 4096;  // values of one tunable (`values` or `range`)
inline constexpr std::uint64_t max_search_space_points = std::uint64_t{1} << 40; // grid points: the
                                                          // product of the tunables' value counts
                                                          // (2^40, about 1.1e12)

// --- jobs -----------------------------------------------------------------------------------------
// A job's name is a folder under <run>/jobs/ (and <run>/llm/): a bound well under NAME_MAX (255
// bytes) and a portable charset keep every path built from it valid on any file system.
inline constexpr std::size_t max_job_name_chars = 128; // characters (bytes) of a job name

// --- campaign -------------------------------------------------------------------------------------
inline constexpr std::string_view run_root = "runs"; // folder, relative to the campaign file
inline constexpr std::uint32_t iterations = 10;       // optimisation iterations per job
inline constexpr std::uint32_t branches = 4;          // K: candidates proposed per iteration
inline constexpr std::uint32_t max_branches = 256;    // upper limit accepted for K
inline constexpr double wall_time_s = 8.0 * 3600.0;   // seconds for the whole campaign
inline constexpr std::uint32_t patience = 3;          // iterations without improvement before stopping
inline constexpr double noise_threshold = 0.02;       // relative; 0.02 = 2%: smaller gains are noise
inline constexpr std::uint64_t seed = 20240917;       // seed of the tuner and of input generation

// --- llm --------------------------------------------------------------------------------------------
inline constexpr std::string_view anthropic_api_key_env = "ANTHROPIC_API_KEY";
inline constexpr std::string_view openai_api_key_env = "OPENAI_API_KEY";

// --- feed: the [feed] table starts from the feed's own defaults, feed/defaults.hpp -----------------

// --- supervision ------------------------------------------------------------------------------------
inline constexpr std::uint32_t max_restarts = 5;          // restarts of one child per window, then escalate
inline constexpr std::uint32_t restart_window_s = 60;     // seconds
inline constexpr std::uint32_t backoff_initial_ms = 100;  // milliseconds before the first restart
inline constexpr double backoff_factor = 2.0;             // multiplier per further restart in the window
inline constexpr std::uint32_t backoff_max_ms = 10000;    // milliseconds, cap of the back-off

} // namespace warpforge::config::defaults
