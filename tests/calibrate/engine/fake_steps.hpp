#pragma once
// A stand-in for the GPU steps: each parameter's benchmark behaves as its row of a table says
// (passes, fails to compile, misses its SASS, times out, crashes, varies, throttles, sweeps), and
// the stand-in counts every call so tests can say what ran and what did not.

#include "calibrate/bench/registry.hpp"
#include "calibrate/catalog.hpp"
#include "calibrate/engine/bench_steps.hpp"

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace warpforge::calibrate::testing {

enum class behaviour { pass, compile_error, sass_mismatch, timeout, crash, high_variance, throttled, sweep, no_value };

struct call_counts {
  int builds = 0, disassemblies = 0, trial_runs = 0, counter_checks = 0;
  double counter_measured = 0; // the value the last counter check was told was measured
};

class fake_steps final : public bench_steps {
public:
  /// `table`: parameter name -> behaviour (a name not in it passes).
  explicit fake_steps(std::map<std::string, behaviour> table, double value = 4.0)
      : table_(std::move(table)), value_(value) {}

  expected<built_benchmark, build_failure> build(const benchmark& bench, const std::string& arch) override {
    std::lock_guard lock{mutex_};
    ++calls_[bench.parameter].builds;
    built_archs_[bench.parameter] = arch;
    if (behaviour_of(bench.parameter) == behaviour::compile_error)
      return unexpected{build_failure{build_failure_kind::compile_error, "nvcc compile_error (" + arch + ")",
                                      bench.file + "(3): error: identifier \"x\" is undefined"}};
    return built_benchmark{"/fake/" + bench.parameter, arch, false, ""};
  }

  expected<std::string, std::string> disassemble(const built_benchmark& built) override {
    std::lock_guard lock{mutex_};
    const auto name = built.executable.filename().string();
    ++calls_[name].disassemblies;
    if (no_disassembler_)
      return unexpected{std::string{"unavailable: no nvdisasm or cuobjdump on this host"}};
    std::string opcode = behaviour_of(name) == behaviour::sass_mismatch ? "IADD3" : "FFMA";
    return "\t\tFunction : bench_kernel\n        /*0000*/  " + opcode + " R1, R2, R3, R4 ;\n        /*0010*/  EXIT ;\n";
  }

  expected<std::vector<trial_output>, std::string> run_trials(const built_benchmark& built, const gpu_slot& gpu,
                                                              std::uint32_t trials,
                                                              const std::filesystem::path&) override {
    std::string name;
    {
      std::lock_guard lock{mutex_};
      name = built.executable.filename().string();
      ++calls_[name].trial_runs;
      gpus_[name] = gpu.ordinal;
    }
    std::vector<trial_output> out;
    for (std::uint32_t i = 0; i < trials; ++i)
      out.push_back(trial(behaviour_of(name), i));
    return out;
  }

  std::string validate_counters(const built_benchmark& built, const parameter&, double measured, const gpu_slot&,
                                const std::filesystem::path&) override {
    std::lock_guard lock{mutex_};
    ++calls_[built.executable.filename().string()].counter_checks;
    calls_[built.executable.filename().string()].counter_measured = measured;
    return "not validated: stand-in";
  }

  call_counts calls(const std::string& name) const {
    std::lock_guard lock{mutex_};
    auto found = calls_.find(name);
    return found == calls_.end() ? call_counts{} : found->second;
  }
  std::string built_arch(const std::string& name) const {
    std::lock_guard lock{mutex_};
    auto found = built_archs_.find(name);
    return found == built_archs_.end() ? "" : found->second;
  }
  int gpu_of(const std::string& name) const {
    std::lock_guard lock{mutex_};
    auto found = gpus_.find(name);
    return found == gpus_.end() ? -2 : found->second;
  }
  void set_no_disassembler() { no_disassembler_ = true; }

private:
  behaviour behaviour_of(const std::string& name) const {
    auto found = table_.find(name);
    return found == table_.end() ? behaviour::pass : found->second;
  }

  static std::string result_line(double value, double clock) {
    return "warm-up done\nRESULT: value=" + std::to_string(value) + " sm_clock_mhz=" + std::to_string(clock) + "\n";
  }

  trial_output trial(behaviour b, std::uint32_t i) const {
    using gpu::program_outcome;
    switch (b) {
    case behaviour::timeout: return {program_outcome::timeout, "", "still running after 60000 ms; killed", 60};
    case behaviour::crash: return {program_outcome::crashed, "", "signal 11 (Segmentation fault)", 0.1};
    case behaviour::no_value: return {program_outcome::bad_output, "hello\n", "no RESULT: line in the output", 0.1};
    case behaviour::high_variance: return {program_outcome::passed, result_line(value_ * (1 + 0.5 * (i % 3)), 1980), "", 0.1};
    case behaviour::throttled: // the last two trials ran at a throttled clock, with a slower value
      return {program_outcome::passed, i >= 8 ? result_line(value_ * 3, 1400) : result_line(value_, 1980), "", 0.1};
    case behaviour::sweep: {
      std::string text = result_line(value_ + 0.001 * i, 1980);
      for (int k = 0; k < 4; ++k)
        text += "RESULT: curve_x=" + std::to_string(1024 << k) + " curve_y=" + std::to_string(k < 2 ? 30 : 200 + i) + "\n";
      return {program_outcome::passed, text, "", 0.1};
    }
    default: return {program_outcome::passed, result_line(value_ + 0.001 * i, 1980), "", 0.1};
    }
  }

  std::map<std::string, behaviour> table_;
  double value_;
  bool no_disassembler_ = false;
  mutable std::mutex mutex_;
  std::map<std::string, call_counts> calls_;
  std::map<std::string, std::string> built_archs_;
  std::map<std::string, int> gpus_;
};

/// A benchmark for `name` whose SASS gate asks for FFMA (the stand-in prints it unless told not to).
inline benchmark test_benchmark(const std::string& name, std::string arch = "sm_90") {
  benchmark b;
  b.parameter = name;
  b.file = "kernels/" + name + ".cu";
  b.source = "// the benchmark of the test\nint main() { return 0; }\n";
  b.arch = std::move(arch);
  b.required_sass = {"FFMA"};
  return b;
}

/// A catalog parameter: cycles in [1, 100], no published value.
inline parameter test_parameter(const std::string& name, std::vector<std::string> depends_on = {},
                                std::uint32_t priority = 1) {
  parameter p;
  p.name = name;
  p.group = category::instruction_latency;
  p.unit = "cycles";
  p.technique = "a dependent chain";
  p.priority = priority;
  p.depends_on = std::move(depends_on);
  p.range_min = 1;
  p.range_max = 100;
  p.expected_sass = {"FFMA"};
  p.validation_metrics = {"smsp__inst_executed_pipe_fma.sum"};
  p.description = "a test parameter";
  return p;
}

} // namespace warpforge::calibrate::testing
