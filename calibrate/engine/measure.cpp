#include "calibrate/engine/measure.hpp"

#include "calibrate/bench/result_lines.hpp"
#include "calibrate/bench/sass_gate.hpp"
#include "calibrate/engine/run_files.hpp"
#include "calibrate/results/capacity_fit.hpp"
#include "calibrate/results/knee.hpp"
#include "foundation/logging/logging.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cmath>
#include <limits>

namespace warpforge::calibrate {

namespace fs = std::filesystem;

constexpr vocabulary::enum_word<build_failure_kind> build_failure_kind_words[] = {
    {build_failure_kind::compile_error, "compile_error"},
    {build_failure_kind::toolchain_missing, "toolchain_missing"},
    {build_failure_kind::internal, "internal"},
};
static_assert(vocabulary::covers(build_failure_kind_words, all_build_failure_kinds));

std::string_view to_string(build_failure_kind kind) { return vocabulary::word_of(build_failure_kind_words, kind); }

std::optional<build_failure_kind> build_failure_kind_from_string(std::string_view text) {
  return vocabulary::value_of(build_failure_kind_words, text);
}

fs::path parameter_dir(const fs::path& run_dir, std::string_view parameter) {
  return run_dir / "jobs" / std::string{parameter};
}

fs::path archive_path(const fs::path& run_dir, std::string_view parameter) {
  return run_dir / "solved" / (std::string{parameter} + ".cu");
}

std::string base_arch(std::string_view arch) {
  std::string text{arch};
  if (!text.empty() && text.back() == 'a')
    text.pop_back();
  return text;
}

arch_choice choose_arch(const benchmark& bench, const gpu_slot& gpu, const std::string& override_arch) {
  const bool needs_specific = !bench.arch.empty() && bench.arch.back() == 'a';
  arch_choice choice;
  if (!override_arch.empty())
    choice.arch = override_arch;
  else if (needs_specific || gpu.arch.empty())
    choice.arch = bench.arch;
  else
    choice.arch = gpu.arch;
  // As the seed does: an arch-specific benchmark (wgmma needs sm_90a) built for the bare arch
  // fails to compile or loses its instructions; say so rather than let the status alone tell.
  if (needs_specific && choice.arch == base_arch(bench.arch))
    choice.warning = bench.parameter + " needs " + bench.arch + " (wgmma); it is built for " + choice.arch +
                     ", where those instructions do not exist";
  return choice;
}

namespace {

// The status of a parameter none of whose trials gave a value.
status failure_of(const std::vector<trial_output>& outputs) {
  const auto any = [&](gpu::program_outcome o) {
    return std::any_of(outputs.begin(), outputs.end(), [o](const trial_output& t) { return t.outcome == o; });
  };
  if (any(gpu::program_outcome::timeout))
    return status::timeout;
  if (any(gpu::program_outcome::failed) || any(gpu::program_outcome::crashed))
    return status::runtime_error;
  return status::no_data;
}

} // namespace

trial_harvest harvest_trials(const std::vector<trial_output>& outputs) {
  trial_harvest harvest;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& out = outputs[i];
    const std::string label = "trial " + std::to_string(i + 1) + ": ";
    if (out.outcome != gpu::program_outcome::passed && out.outcome != gpu::program_outcome::bad_output) {
      harvest.notes.push_back(label + std::string{gpu::to_string(out.outcome)} + " (" + out.detail + ")");
      continue;
    }
    const auto read = read_output(out.output);
    if (!read.value) {
      harvest.notes.push_back(label + "no value (" + (read.problem.empty() ? out.detail : read.problem) + ")");
      continue;
    }
    if (!read.problem.empty())
      harvest.notes.push_back(label + read.problem);
    harvest.trials.push_back(trial{*read.value, read.sm_clock_mhz.value_or(0.0)});
    if (read.raw_chase_cycles)
      harvest.raw_chase_cycles.push_back(*read.raw_chase_cycles);
    if (read.index_chase_cycles)
      harvest.index_chase_cycles.push_back(*read.index_chase_cycles);
    std::vector<curve_point> curve;
    for (const auto& point : read.curve)
      curve.push_back(curve_point{point.x, point.y});
    harvest.curves.push_back(std::move(curve));
  }
  if (harvest.trials.empty())
    harvest.failure = failure_of(outputs);
  return harvest;
}

std::optional<double> knee_size(const std::vector<curve_point>& curve, std::string_view unit) {
  const double bytes_per_unit = bytes_per_size_unit(unit);
  if (bytes_per_unit == 0 || curve.empty())
    return std::nullopt;
  // The first level is the cache the sweep starts in; later steps (Hopper's L2 seen from one SM:
  // its partition's share, then DRAM) belong to larger levels and stay on the chart.
  const auto onset = find_onset(curve);
  if (!onset)
    return std::nullopt;
  return onset->x / bytes_per_unit;
}

void apply_size_rule(const parameter& what, trial_harvest& harvest) {
  const double bytes_per_unit = bytes_per_size_unit(what.unit);
  if (bytes_per_unit == 0)
    return;
  std::size_t without = 0, unfitted = 0;
  std::string why_unfitted;
  for (std::size_t i = 0; i < harvest.trials.size() && i < harvest.curves.size(); ++i) {
    if (what.size_from == size_rule::miss_fit) {
      // The program's own figure is a first estimate, not the capacity: a curve with no fit
      // leaves its trial without a value rather than with that estimate.
      if (auto fit = fit_capacity(harvest.curves[i])) {
        harvest.trials[i].value = fit->capacity / bytes_per_unit;
      } else {
        harvest.trials[i].value = std::numeric_limits<double>::quiet_NaN();
        if (unfitted++ == 0)
          why_unfitted = fit.error();
      }
    } else if (auto size = knee_size(harvest.curves[i], what.unit)) {
      harvest.trials[i].value = *size;
    } else {
      ++without;
    }
  }
  if (without > 0)
    harvest.notes.push_back(std::to_string(without) + " trial(s) without a knee in their curve: the program's own estimate is kept");
  if (unfitted > 0)
    harvest.notes.push_back(std::to_string(unfitted) + " trial(s) whose curve gives no capacity, left without a value (the first: " +
                            why_unfitted + ")");
}

std::vector<curve_point> representative_curve(const trial_harvest& harvest, double median) {
  std::size_t best = harvest.trials.size();
  double distance = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < harvest.trials.size() && i < harvest.curves.size(); ++i) {
    if (harvest.curves[i].empty())
      continue;
    const double d = std::abs(harvest.trials[i].value - median);
    if (d < distance) {
      distance = d;
      best = i;
    }
  }
  return best < harvest.curves.size() ? harvest.curves[best] : std::vector<curve_point>{};
}

std::vector<std::string> method_notes(const parameter& what, const trial_harvest& harvest,
                                      const std::vector<curve_point>& curve, std::string_view arch) {
  std::vector<std::string> out;
  if (!what.method.empty())
    out.push_back("method: " + what.method);
  const auto median_of = [](std::vector<double> figures) -> std::optional<double> {
    if (figures.empty())
      return std::nullopt;
    std::sort(figures.begin(), figures.end());
    const std::size_t n = figures.size();
    return n % 2 == 1 ? figures[n / 2] : (figures[n / 2 - 1] + figures[n / 2]) / 2;
  };
  const auto number = [](double value) {
    char text[48];
    std::snprintf(text, sizeof text, "%.4g", value);
    return std::string{text};
  };
  const auto raw = median_of(harvest.raw_chase_cycles), index = median_of(harvest.index_chase_cycles);
  if (raw)
    out.push_back("raw pointer chase (a clock64 pair around each dependent load, no address arithmetic): " +
                  number(*raw) + " " + what.unit + ", median of " +
                  std::to_string(harvest.raw_chase_cycles.size()) + " trial(s)");
  if (index)
    out.push_back("index chase (j = A[j], one clock64 window around the hops, loop and address arithmetic "
                  "included: the figure the published tables compare with): " +
                  number(*index) + " " + what.unit + ", median of " +
                  std::to_string(harvest.index_chase_cycles.size()) + " trial(s)");
  const std::string base = base_arch(arch);
  bool cited = false;
  for (const auto& figure : what.literature) {
    if (!arch.empty() && figure.arch != base)
      continue;
    cited = true;
    std::string note = "published " + figure.figure + " figure: " + number(figure.value) + " " + what.unit +
                       " on " + figure.gpu + " (" + figure.method + "; " + figure.source + ")";
    const std::optional<double> ours = figure.figure == "index_chase" ? index
                                       : figure.figure == "raw_chase" ? raw
                                                                      : std::optional<double>{};
    if (ours)
      note += "; warpforge's " + figure.figure + " " + number(*ours) + " " + what.unit;
    out.push_back(std::move(note));
  }
  if (!cited && !what.literature_not_found.empty())
    out.push_back("published figures: not found (" + what.literature_not_found + ")");
  if (const double unit = bytes_per_size_unit(what.unit); unit > 0 && !curve.empty()) {
    if (auto onset = find_onset(curve))
      out.push_back(describe_onset(*onset, unit, what.unit) + " (the representative trial's curve)");
    if (what.size_from == size_rule::miss_fit)
      if (auto fit = fit_capacity(curve))
        out.push_back(describe_fit(*fit, unit, what.unit) + " (the representative trial's curve)");
  }
  return out;
}

expected<fs::path, std::string> archive_benchmark(const parameter_result& result, const benchmark& bench,
                                                  const fs::path& run_dir) {
  const auto path = archive_path(run_dir, result.name);
  std::string text = archive_header(result);
  if (!text.empty() && text.back() != '\n')
    text += '\n';
  text += bench.source;
  if (auto written = write_file_atomically(path, text); !written)
    return unexpected{written.error()};
  return path;
}

} // namespace warpforge::calibrate

namespace warpforge::calibrate {

namespace {

std::shared_ptr<spdlog::logger> log() {
  return logging::get("calibrate");
}

// "2026-11-25T21:04:05Z": when the parameter was measured.
std::string utc_now_iso() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

parameter_result start_result(const measure_request& request) {
  parameter_result out;
  out.name = request.what->name;
  out.unit = request.what->unit;
  out.result = status::no_data; // and no value until a trial gives one
  out.gpu_name = request.gpu.name;
  out.sass_verdict = "not checked";
  out.counter_verdict = "not validated";
  out.benchmark_file = request.bench != nullptr ? request.bench->file : "";
  out.measured_at = utc_now_iso();
  return out;
}

void keep_file(const fs::path& path, std::string_view text, parameter_result& out) {
  if (auto written = write_file_atomically(path, text); !written)
    out.notes.push_back(written.error());
}

// nvcc; on failure the status and the log. A missing toolchain or an internal failure is the
// host's fault, not the benchmark's: NO_DATA, so a resume tries it again.
std::optional<built_benchmark> build_step(const measure_request& request, const std::string& arch,
                                          bench_steps& steps, parameter_result& out) {
  const auto dir = parameter_dir(request.run_dir, out.name);
  auto built = steps.build(*request.bench, arch);
  if (!built) {
    const auto& failure = built.error();
    if (!failure.log.empty())
      keep_file(dir / "compile.log", failure.log, out);
    out.result = failure.kind == build_failure_kind::compile_error ? status::compile_error : status::no_data;
    out.notes.push_back("build for " + arch + " failed (" + std::string{to_string(failure.kind)} + "): " +
                        failure.detail);
    return std::nullopt;
  }
  if (!built->log.empty())
    keep_file(dir / "compile.log", built->log, out);
  return std::move(*built);
}

// The SASS gate: true when timing may go on. Without a disassembler the gate cannot judge; the
// trials still run and the verdict says it was not checked (never a silent pass).
bool sass_step(const measure_request& request, const built_benchmark& built, bench_steps& steps,
               parameter_result& out) {
  auto listing = steps.disassemble(built);
  if (!listing) {
    out.sass_verdict = "not checked: " + listing.error();
    out.notes.push_back("SASS not checked: " + listing.error());
    return true;
  }
  keep_file(parameter_dir(request.run_dir, out.name) / "sass.txt", *listing, out);
  const auto gate = check_sass(*listing, *request.bench);
  if (!gate.ok) {
    out.result = status::sass_mismatch;
    out.sass_verdict = "MISMATCH: " + gate.reason;
    out.notes.push_back("SASS gate: " + gate.reason + " (see jobs/" + out.name + "/sass.txt)");
    return false;
  }
  std::string opcodes;
  for (const auto& opcode : request.bench->required_sass)
    opcodes += (opcodes.empty() ? "" : ", ") + opcode;
  out.sass_verdict = "OK" + (opcodes.empty() ? std::string{} : " (" + opcodes + ")");
  return true;
}

// Trials -> statistics -> verdict -> counters -> archive.
void trials_step(const measure_request& request, const built_benchmark& built, bench_steps& steps,
                 parameter_result& out) {
  const auto dir = parameter_dir(request.run_dir, out.name);
  auto outputs = steps.run_trials(built, request.gpu, request.trials, dir);
  if (!outputs) {
    out.result = status::no_data;
    out.notes.push_back("not run on GPU " + std::to_string(request.gpu.ordinal) + ": " + outputs.error());
    return;
  }
  auto harvest = harvest_trials(*outputs);
  apply_size_rule(*request.what, harvest);
  out.notes.insert(out.notes.end(), harvest.notes.begin(), harvest.notes.end());
  if (harvest.failure) {
    out.result = *harvest.failure;
    return;
  }
  out.stats = summarize(harvest.trials, request.throttle_fraction);
  const auto verdict = judge(*request.what, out.stats, out.known);
  out.result = verdict.result;
  out.notes.insert(out.notes.end(), verdict.notes.begin(), verdict.notes.end());
  if (!has_center(out.stats)) { // every trial non-finite: judge said NO_DATA and why
    // A size whose curves gave no value is explained by its curves: keep one for the chart.
    for (const auto& curve : harvest.curves)
      if (!curve.empty()) {
        out.curve = curve;
        break;
      }
    out.counter_verdict = "not validated: nothing was measured";
    return;
  }
  out.value = out.stats.median;
  out.curve = representative_curve(harvest, out.stats.median);
  const auto how = method_notes(*request.what, harvest, out.curve, out.arch);
  out.notes.insert(out.notes.end(), how.begin(), how.end());
  out.counter_verdict = request.what->validation_metrics.empty()
                          ? "not validated: the catalog lists no validation metric"
                          : steps.validate_counters(built, *request.what, *out.value, request.gpu, dir);
}

} // namespace

parameter_result measure_parameter(const measure_request& request, bench_steps& steps) {
  auto out = start_result(request);
  if (request.bench == nullptr) {
    out.notes.push_back("no built-in benchmark for this parameter (priority " +
                        std::to_string(request.what->priority) + ")");
    return out;
  }
  const auto arch = choose_arch(*request.bench, request.gpu, request.arch_override);
  out.arch = arch.arch;
  out.known = known_for(*request.what, base_arch(arch.arch));
  if (!arch.warning.empty()) {
    log()->warn("{}", arch.warning);
    out.notes.push_back(arch.warning);
  }
  auto built = build_step(request, arch.arch, steps, out);
  if (!built || !sass_step(request, *built, steps, out))
    return out;
  if (!request.gpu.has_gpu()) {
    out.notes.push_back(verdict_passed(out.sass_verdict) ? "built and SASS-checked; not run: no GPU"
                                                         : "built; not run: no GPU");
    return out;
  }
  trials_step(request, *built, steps, out);
  if (is_passing(out.result))
    if (auto archived = archive_benchmark(out, *request.bench, request.run_dir); !archived)
      out.notes.push_back("not archived: " + archived.error());
  return out;
}

} // namespace warpforge::calibrate
