#include "calibrate/engine/counter_check.hpp"

#include "calibrate/engine/run_files.hpp"
#include "diagnosis/metric_unit.hpp"
#include "diagnosis/ncu_csv.hpp"
#include "gpu/runner/child_process.hpp"
#include "gpu/toolchain.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <csignal>
#include <cstdio>
#include <signal.h>

namespace warpforge::calibrate {

namespace {

namespace fs = std::filesystem;

/// ncu's code for "this user may not read the performance counters".
constexpr std::string_view permission_error = "ERR_NVGPUCTRPERM";
constexpr std::string_view error_prefix = "==ERROR==";

// The arguments both passes share: never lock clocks, leave the caches as the benchmark left them.
std::vector<std::string> common_arguments(const fs::path& csv_file) {
  return {"--clock-control", "none", "--cache-control", "none", "--csv", "--page", "raw",
          "--print-units", "base", "--log-file", csv_file.string()};
}

// Metrics whose zero is a finding, not a sign the benchmark exercised nothing: a bank-conflict
// count (a conflict-free probe), a hit rate (a chase that misses every time), divergent branches.
bool zero_is_meaningful(std::string_view metric) {
  for (std::string_view part : {"bank_conflicts", "hit_rate", "divergent"})
    if (metric.find(part) != std::string_view::npos)
      return true;
  return false;
}

std::string format_number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string describe(const diagnosis::ncu_value& value) {
  return value.name + "=" + format_number(*value.value) + (value.unit.empty() ? "" : " " + value.unit);
}

// A counter in the base the formula works in: bytes for a byte count, seconds for a time, else as
// counted (instructions, cycles, sectors). nullopt when the unit is a byte or time unit that
// cannot be converted.
std::optional<double> in_formula_base(const diagnosis::ncu_value& value) {
  for (const auto base : {diagnosis::metric_unit::bytes, diagnosis::metric_unit::seconds})
    if (auto converted = diagnosis::from_nsight(*value.value, value.unit, base))
      return *converted;
  return *value.value;
}

// The value recomputed from the launch's counters (the catalog's rederive formula) against the
// measured one: the verdict's part for it, and whether it is beyond ±5%. nullopt: no formula.
struct rederived {
  std::string text;  // "re-derived 3050 GB/s from counters, ratio 0.996"
  bool off = false;  // beyond rederive_tolerance
};
std::optional<rederived> rederive_value(const diagnosis::ncu_launch& launch, const parameter& what,
                                        double measured) {
  if (!what.rederive)
    return std::nullopt;
  const auto* count = launch.find(what.rederive->count);
  const auto* over = launch.find(what.rederive->over);
  if (count == nullptr || over == nullptr || !count->value || !over->value)
    return rederived{"not re-derived: ncu gave no value for " +
                         (count == nullptr || !count->value ? what.rederive->count : what.rederive->over),
                     true};
  const auto numerator = in_formula_base(*count), denominator = in_formula_base(*over);
  if (!numerator || !denominator || *denominator <= 0 || measured <= 0)
    return rederived{"not re-derived: " + what.rederive->over + " is " + format_number(*over->value) + " " +
                         over->unit,
                     true};
  const double value = *numerator * what.rederive->scale / *denominator;
  const double ratio = value / measured;
  rederived out;
  out.off = ratio < 1 - rederive_tolerance || ratio > 1 + rederive_tolerance;
  out.text = "re-derived " + format_number(value) + " " + what.unit + " = " + what.rederive->count + " x " +
             format_number(what.rederive->scale) + " / " + what.rederive->over + ", ratio " +
             format_number(ratio) + " to the measured " + format_number(measured) +
             (out.off ? " (beyond ±5%)" : "");
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  return fmt::format("{}", fmt::join(parts, separator));
}

} // namespace

std::vector<std::string> ncu_count_arguments(const fs::path& csv_file, const fs::path& executable) {
  auto args = common_arguments(csv_file);
  args.insert(args.end(), {"--metrics", std::string{launch_count_metric}, executable.string()});
  return args;
}

std::vector<std::string> ncu_profile_arguments(const std::vector<std::string>& metrics, std::size_t skip,
                                               const fs::path& csv_file, const fs::path& executable) {
  auto args = common_arguments(csv_file);
  args.insert(args.end(), {"--metrics", join(metrics, ","), "--launch-skip", std::to_string(skip),
                           "--launch-count", "1", executable.string()});
  return args;
}

expected<std::size_t, std::string> count_launches(std::string_view csv_text) {
  auto report = diagnosis::parse_ncu_raw_csv(csv_text);
  if (!report)
    return unexpected{"ncu's launch list is unreadable: " + diagnosis::to_string(report.error())};
  if (report->launches.empty())
    return unexpected{std::string{"ncu saw the benchmark launch no kernel"}};
  return report->launches.size();
}

std::string counter_verdict(std::string_view csv_text, const parameter& what, double measured) {
  auto report = diagnosis::parse_ncu_raw_csv(csv_text);
  if (!report)
    return "not validated: ncu's CSV is unreadable: " + diagnosis::to_string(report.error());
  if (report->launches.empty())
    return "not validated: ncu profiled no launch";
  const auto& launch = report->launches.back();
  std::vector<std::string> seen, mismatches;
  for (const auto& metric : what.validation_metrics) {
    const auto* value = launch.find(metric);
    if (value == nullptr || !value->value)
      return "not validated: ncu reported no value for " + metric +
             (value == nullptr ? std::string{} : " ('" + value->text + "')") + " on " + launch.kernel_name;
    if (*value->value == 0 && !zero_is_meaningful(metric))
      mismatches.push_back(metric + " = 0: the measured kernel (" + launch.kernel_name + ") did not exercise it");
    seen.push_back(describe(*value));
  }
  const auto again = rederive_value(launch, what, measured);
  if (again && again->off)
    mismatches.push_back(again->text);
  const std::string rederived_text = again && !again->off ? again->text + "; " : std::string{};
  if (!mismatches.empty())
    return "MISMATCH: " + join(mismatches, "; ") + " (ncu: " + join(seen, ", ") + ")";
  return "PASS (" + rederived_text + "ncu: " + join(seen, ", ") + ")";
}

std::optional<std::string> ncu_refusal(std::string_view output_text) {
  if (output_text.find(permission_error) != std::string_view::npos)
    return "not validated: the GPU's performance counters are restricted (ncu: " + std::string{permission_error} +
           "; profiling needs admin rights or NVreg_RestrictProfilingToAdminUsers=0)";
  const auto at = output_text.find(error_prefix);
  if (at == std::string_view::npos)
    return std::nullopt;
  auto line = output_text.substr(at);
  line = line.substr(0, line.find('\n'));
  return "not validated: ncu: " + std::string{line};
}

std::optional<fs::path> locate_ncu() {
  const auto env = gpu::toolchain_environment::from_process();
  const fs::path home = env.cuda_home ? fs::path{*env.cuda_home} : gpu::default_cuda_home;
  return gpu::find_tool(gpu::to_string(gpu::cuda_tool::ncu), env.path, home);
}

namespace {

// One ncu pass: its CSV text, or the verdict saying why there is none.
expected<std::string, std::string> run_ncu_pass(const counter_check_request& request,
                                                const std::vector<std::string>& arguments, const fs::path& csv_file) {
  std::error_code ec;
  fs::remove(csv_file, ec);
  const auto log_file = request.dir / ncu_output_log;
  const auto log_before = fs::exists(log_file, ec) ? fs::file_size(log_file, ec) : 0;
  gpu::spawn_options spawn;
  spawn.executable = request.ncu;
  spawn.arguments = arguments;
  spawn.environment.emplace_back("CUDA_VISIBLE_DEVICES", request.visible_devices);
  spawn.output_file = log_file;
  auto child = gpu::child_process::spawn(spawn);
  if (!child)
    return unexpected{"not validated: cannot start ncu: " + child.error().detail};
  auto exit = child->wait_for_exit(request.timeout);
  if (!exit) {
    ::kill(-child->pid(), SIGKILL); // ncu and the benchmark it started share its process group
    child->kill_and_reap();
    return unexpected{"not validated: ncu ran past " + format_number(request.timeout.count() / 1000.0) +
                      " s and was killed"};
  }
  const auto output = read_whole_file(log_file).value_or("");
  auto csv = read_whole_file(csv_file);
  // With --log-file, ncu's own messages go to the CSV file too: both are searched for a refusal.
  const auto fresh_output = output.substr(std::min<std::size_t>(log_before, output.size()));
  if (auto refusal = ncu_refusal(fresh_output + csv.value_or("")))
    return unexpected{*refusal};
  if (exit->exit_code != 0)
    return unexpected{"not validated: ncu ended with " + exit->to_string() + " (" + log_file.string() + ")"};
  if (!csv)
    return unexpected{"not validated: ncu wrote no CSV (" + csv_file.filename().string() + ")"};
  return std::move(*csv);
}

} // namespace

std::string validate_with_ncu(const counter_check_request& request, const parameter& what, double measured) {
  std::error_code ec;
  fs::create_directories(request.dir, ec);
  const auto count_csv = request.dir / ncu_count_csv;
  auto listed = run_ncu_pass(request, ncu_count_arguments(count_csv, request.executable), count_csv);
  if (!listed)
    return listed.error();
  auto launches = count_launches(*listed);
  if (!launches)
    return "not validated: " + launches.error();
  const auto profile_csv = request.dir / ncu_profile_csv;
  auto profiled = run_ncu_pass(
    request, ncu_profile_arguments(what.validation_metrics, *launches - 1, profile_csv, request.executable),
    profile_csv);
  if (!profiled)
    return profiled.error();
  return counter_verdict(*profiled, what, measured);
}

} // namespace warpforge::calibrate
