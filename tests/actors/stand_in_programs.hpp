#pragma once
// A stand-in for nvcc and cuobjdump in calibrate's actor tests: each parameter's "benchmark" is
// built as a small shell program that behaves as its row of a table says (prints a RESULT line,
// crashes on a signal, or hangs past the watchdog), so the trials are real processes that the
// gpu_worker runs under its lock and watchdog, without a GPU. run_trials and validate_counters
// run the same programs directly (gpu::run_program, the engine-only path), for comparison.

#include "calibrate/engine/bench_steps.hpp"
#include "calibrate/engine/toolchain_steps.hpp"
#include "gpu/runner/program_run.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <string>

namespace warpforge::actors::testing {

enum class program_behaviour { pass, slow, crash, hang }; // slow: passes after 0.3 s

class stand_in_programs final : public calibrate::bench_steps {
public:
  /// Programs go into `bin`; `table`: parameter -> behaviour (others pass, printing `value`).
  stand_in_programs(std::filesystem::path bin, std::map<std::string, program_behaviour> table, double value = 4.0,
                    std::chrono::milliseconds watchdog = std::chrono::milliseconds{2'000})
      : bin_(std::move(bin)), table_(std::move(table)), value_(value), watchdog_(watchdog) {
    std::filesystem::create_directories(bin_);
  }

  expected<calibrate::built_benchmark, calibrate::build_failure> build(const calibrate::benchmark& bench,
                                                                       const std::string& arch) override {
    std::lock_guard lock{mutex_};
    const auto path = bin_ / bench.parameter;
    // O_CLOEXEC: a trial of another GPU started meanwhile must not inherit this file open for
    // writing, or executing it fails with ETXTBSY ("text file busy").
    const std::string text = "#!/bin/sh\n" + body(bench.parameter);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
    const bool written = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (fd >= 0)
      ::close(fd);
    if (!written)
      return unexpected{calibrate::build_failure{calibrate::build_failure_kind::internal, "cannot write " + path.string(), ""}};
    return calibrate::built_benchmark{path, arch, false, ""};
  }

  expected<std::string, std::string> disassemble(const calibrate::built_benchmark&) override {
    return std::string{"\t\tFunction : bench_kernel\n        /*0000*/  FFMA R1, R2, R3, R4 ;\n"
                       "        /*0010*/  EXIT ;\n"};
  }

  // The engine-only path: the program run here, pinned as a worker would pin it.
  expected<std::vector<calibrate::trial_output>, std::string> run_trials(const calibrate::built_benchmark& built,
                                                                         const calibrate::gpu_slot& gpu,
                                                                         std::uint32_t trials,
                                                                         const std::filesystem::path& log_dir) override {
    gpu::program_run_options run;
    run.executable = built.executable;
    run.visible_devices = gpu.uuid;
    run.watchdog = watchdog_;
    run.trials = trials;
    run.output_dir = log_dir;
    auto report = gpu::run_program(run);
    if (!report)
      return unexpected{"cannot start " + built.executable.string() + ": " + report.error().detail};
    return calibrate::trial_outputs(report->trials, log_dir);
  }

  std::string validate_counters(const calibrate::built_benchmark&, const calibrate::parameter&, double,
                                const calibrate::gpu_slot&, const std::filesystem::path&) override {
    return "not validated: stand-in"; // the tests' parameters list no validation metric
  }

private:
  std::string body(const std::string& name) const {
    auto found = table_.find(name);
    switch (found == table_.end() ? program_behaviour::pass : found->second) {
    case program_behaviour::crash: return "echo started\nkill -SEGV $$\n";
    case program_behaviour::hang: return "exec sleep 30\n"; // exec: the watchdog kills the sleep itself
    case program_behaviour::slow: return "sleep 0.3\n" + result();
    case program_behaviour::pass: break;
    }
    return result();
  }
  std::string result() const {
    return "echo warm-up done\necho 'RESULT: value=" + std::to_string(value_) + " sm_clock_mhz=1980'\n";
  }

  std::filesystem::path bin_;
  std::map<std::string, program_behaviour> table_;
  double value_;
  std::chrono::milliseconds watchdog_;
  std::mutex mutex_;
};

} // namespace warpforge::actors::testing
