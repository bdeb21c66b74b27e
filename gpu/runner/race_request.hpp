#pragma once
// PLACEHOLDER until the runner branch lands (issue 10): the race types as the coordinator codes
// against them. Replaced by the runner branch's gpu/runner/race_request.hpp at merge.

#include "gpu/runner/candidate_request.hpp"

namespace warpforge::gpu {

struct race_request {
  std::vector<kernel_launch> kernels;
  std::optional<kernel_launch> reference;
  std::vector<candidate_arg> args;
  std::vector<std::uint64_t> seeds;
  timing_policy timing;
  vocabulary::timing_mode mode = vocabulary::timing_mode::warm;
  kernel_watchdog watchdog;
  bool operator==(const race_request&) const = default;
};

struct kernel_result {
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::runtime_error;
  std::string detail;
  std::optional<std::uint64_t> seed;
  std::string arg;
  std::optional<compare_report> compare;
  std::optional<input_check> input;
  sample_stats stats;
  stop_decision decision = stop_decision::keep_going;
  std::uint32_t rounds = 0;
  double kernel_s = 0;
  double load_s = 0, check_s = 0, warmup_s = 0, timing_s = 0;
  std::vector<std::string> notes;
  bool operator==(const kernel_result&) const = default;
};

struct race_result {
  std::vector<kernel_result> kernels;
  double reference_s = 0;
  double watchdog_s = 0;
  double sm_clock_hz_before = 0, sm_clock_hz_after = 0;
  double inputs_s = 0;
  double reference_wall_s = 0;
  double setup_s = 0;
  double wall_s = 0;
  std::optional<std::size_t> ended_by;
  bool runner_exits = false;
  std::vector<std::string> notes;
  bool operator==(const race_result&) const = default;
};

struct race_inputs {
  std::vector<kernel_launch> kernels;
  std::optional<std::filesystem::path> reference_cubin;
  std::string reference_entry;
  std::optional<config::launch_geometry> reference_launch;
  std::uint64_t seed = 0;
  timing_policy timing;
  vocabulary::timing_mode mode = vocabulary::timing_mode::warm;
};

} // namespace warpforge::gpu

// PLACEHOLDER body (replaced at merge).
namespace warpforge::gpu {
inline race_request make_race_request(const config::resolved_problem& problem, const config::reference_spec& reference,
                                      const race_inputs& inputs) {
  candidate_inputs one;
  one.reference_cubin = inputs.reference_cubin;
  one.reference_entry = inputs.reference_entry;
  one.reference_launch = inputs.reference_launch;
  one.seed = inputs.seed;
  one.mode = inputs.mode;
  auto c = make_candidate_request(problem, reference, one);
  race_request r;
  r.kernels = inputs.kernels;
  r.reference = c.reference;
  r.args = c.args;
  r.seeds = c.seeds;
  r.mode = c.mode;
  return r;
}
inline std::string encode_body(const race_request& r) {
  candidate_request c;
  c.candidate = r.kernels.front();
  c.reference = r.reference;
  c.args = r.args;
  c.seeds = r.seeds;
  c.mode = r.mode;
  return encode_body(c);
}
} // namespace warpforge::gpu
