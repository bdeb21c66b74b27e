// `warpforge bench <problem.toml> [--candidate a.cu ...]`: the problem's kernel (the baseline) and
// each candidate, built once and measured together in one race on every chosen GPU, through the
// same pipeline as a campaign (a campaign of one job, mode bench). Then the tables, printed from
// what the run recorded: each kernel's verdict and time, and where each kernel's wall time went.

#include "config/toml_reader/placed_error.hpp"
#include "apps/warpforge/cli/commands.hpp"

#include "apps/warpforge/cli/gpu_fleet.hpp"
#include "apps/warpforge/cli/one_job_campaign.hpp"
#include "apps/warpforge/cli/pipeline_session.hpp"
#include "apps/warpforge/cli/recorded_events.hpp"
#include "apps/warpforge/cli/text.hpp"
#include "foundation/json/writer.hpp"
#include "foundation/logging/logging.hpp"
#include "pipeline/code_check.hpp"
#include "pipeline/job_setup.hpp"

#include <cstdio>
#include <iostream>
#include <map>

namespace warpforge::cli {
namespace {

namespace fs = std::filesystem;

// One (GPU, kernel) cell, from the recorded results.
struct bench_row {
  int gpu = -1;
  std::int64_t kernel = 0;
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run;
  std::string detail;
  const measured_record* measured = nullptr; // when it passed

  std::string outcome_text() const { return std::string{vocabulary::to_string(outcome)}; }
};

// Each kernel's build, by its ordinal (the baseline is 0).
using compiled_map = std::map<std::int64_t, const compiled_record*>;

std::string label(const bench_options& options, std::int64_t ordinal) {
  if (ordinal == 0)
    return "baseline";
  const auto i = static_cast<std::size_t>(ordinal - 1);
  return i < options.candidate_paths.size() ? fs::path{options.candidate_paths[i]}.filename().string() : "?";
}

// The latest verdict of each (GPU, kernel): measured, or failed with its outcome.
std::vector<bench_row> rows_of(const recorded_results& results) {
  std::map<std::pair<int, std::int64_t>, std::pair<std::int64_t, bench_row>> rows; // with its seq
  auto keep = [&](const recorded_place& at, bench_row row) {
    auto& [seq, kept] = rows[{at.gpu, at.branch}];
    if (at.seq >= seq) {
      seq = at.seq;
      kept = std::move(row);
    }
  };
  for (const auto& m : results.measured)
    keep(m.at, {m.at.gpu, m.at.branch, vocabulary::branch_outcome::passed, "", &m});
  for (const auto& f : results.failed)
    keep(f.at, {f.at.gpu, f.at.branch, f.outcome, f.detail, nullptr});
  std::vector<bench_row> out;
  for (auto& [key, row] : rows)
    out.push_back(row.second);
  return out;
}

// What the code check could read, as the run's branch_compiled events say: never "checked" of a
// SASS no disassembler could list.
void print_code_check(const compiled_map& compiled) {
  if (compiled.empty())
    return;
  const auto& sass = compiled.begin()->second->sass_check;
  if (sass.empty()) // recorded before the events said so
    return;
  std::printf("code check: PTX checked, SASS %s\n", sass.c_str());
}

// The baseline's median per GPU, seconds.
std::map<int, double> baseline_medians(const std::vector<bench_row>& rows) {
  std::map<int, double> baseline;
  for (const auto& r : rows)
    if (r.kernel == 0 && r.measured)
      baseline[r.gpu] = r.measured->time_s;
  return baseline;
}

void print_verdicts(const bench_options& options, const std::vector<bench_row>& rows, const compiled_map& compiled,
                    double buffer_bytes) {
  const auto baseline = baseline_medians(rows);
  std::printf("\n%-4s %-22s %-14s %-13s %11s %23s %7s %7s %6s %8s %8s\n", "GPU", "kernel", "outcome", "compile",
              "median", "95% CI of median", "cv", "samples", "rounds", "GB/s*", "speed-up");
  for (const auto& r : rows) {
    char compile[32] = "-";
    if (auto c = compiled.find(r.kernel); c != compiled.end())
      std::snprintf(compile, sizeof compile, "%s %.1fms", c->second->cache_hit ? "hit" : "nvrtc",
                    c->second->compile_s * 1e3);
    if (!r.measured) {
      std::printf("%-4s %-22s %-14s %-13s  %s\n", r.gpu < 0 ? "-" : std::to_string(r.gpu).c_str(),
                  label(options, r.kernel).substr(0, 22).c_str(), r.outcome_text().c_str(), compile,
                  first_line(r.detail, 160).c_str());
      continue;
    }
    const auto& m = *r.measured;
    const double median = m.time_s;
    const std::string ci = format_time(m.ci95_low_s) + " - " + format_time(m.ci95_high_s);
    char speedup[16] = "-";
    if (auto b = baseline.find(r.gpu); b != baseline.end() && median > 0)
      std::snprintf(speedup, sizeof speedup, "%.2fx", b->second / median);
    std::printf("%-4d %-22s %-14s %-13s %11s %23s %6.2f%% %7lld %6lld %8.1f %8s\n", r.gpu,
                label(options, r.kernel).substr(0, 22).c_str(), r.outcome_text().c_str(), compile,
                format_time(median).c_str(), ci.c_str(), m.cv * 100, static_cast<long long>(m.samples),
                static_cast<long long>(m.rounds), median > 0 ? buffer_bytes / median / 1e9 : 0.0, speedup);
  }
  std::printf("* GB/s counts every buffer once (inputs read, outputs written) over the median time.\n");
  print_code_check(compiled);
}

// Where each kernel's wall time went (seconds), and the race's shared costs.
void print_costs(const bench_options& options, const std::vector<bench_row>& rows, const compiled_map& compiled,
                 const pipeline::campaign_result& result) {
  std::printf("\nper-kernel wall time (seconds)\n%-4s %-22s %9s %9s %9s %9s %9s %9s %11s\n", "GPU", "kernel", "compile",
              "load", "check", "warm-up", "timing", "total", "kernel time");
  std::map<int, const measured_record*> race_of; // any measured kernel carries its race's figures
  std::size_t verified = 0;
  for (const auto& r : rows) {
    if (!r.measured)
      continue;
    const auto& m = *r.measured;
    race_of[r.gpu] = &m;
    ++verified;
    double compile = 0;
    if (auto c = compiled.find(r.kernel); c != compiled.end())
      compile = c->second->compile_s;
    const double total = compile + m.load_s + m.check_s + m.warmup_s + m.timing_s;
    std::printf("%-4d %-22s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %11.4f\n", r.gpu,
                label(options, r.kernel).substr(0, 22).c_str(), compile, m.load_s, m.check_s, m.warmup_s, m.timing_s,
                total, m.kernel_s);
  }
  for (const auto& [gpu, m] : race_of)
    std::printf("GPU %d race: %lld kernels; inputs generated %.3f s, reference computed %.3f s (0: kept from an earlier "
                "race), runner set-up %.3f s, race %.3f s in the runner, %.3f s in the worker\n",
                gpu, static_cast<long long>(m->race_kernels), m->race_inputs_s, m->race_reference_s, m->race_setup_s,
                m->race_wall_s, m->request_s);
  if (verified > 0)
    std::printf("bench wall time %.2f s for %zu verified kernel(s): %.3f s per verified kernel, compiles included; "
                "GPU busy %.0f%% (kernel time over wall time)\n",
                result.wall_s, verified, result.wall_s / static_cast<double>(verified), result.gpu_busy_fraction * 100);
}

// The same facts as the two tables, as one JSON object (--json).
void write_json(const bench_options& options, const std::vector<bench_row>& rows, const compiled_map& compiled,
                const session_outcome& outcome) {
  const auto baseline = baseline_medians(rows);
  json::writer w;
  // What was not measured is null with a not_measured_reason beside it, never 0.
  w.begin_object().key("problem").value(options.problem_path).key("run_dir").value(outcome.run_dir.string())
    .key("wall_s").value(outcome.result.wall_s).key("gpu_busy_fraction");
  outcome.gpus.empty() ? w.null() : w.value(outcome.result.gpu_busy_fraction);
  w.key("kernels").begin_array();
  for (const auto& r : rows) {
    w.begin_object().key("gpu");
    r.gpu < 0 ? w.null() : w.value(r.gpu);
    w.key("kernel").value(label(options, r.kernel)).key("outcome").value(r.outcome_text()).key("detail").value(r.detail);
    if (auto c = compiled.find(r.kernel); c != compiled.end())
      w.key("compile_s").value(c->second->compile_s).key("cache_hit").value(c->second->cache_hit);
    if (r.measured) {
      const auto& m = *r.measured;
      w.key("time_s").value(m.time_s).key("ci95_low_s").value(m.ci95_low_s).key("ci95_high_s").value(m.ci95_high_s)
        .key("cv").value(m.cv).key("samples").value(m.samples).key("rounds").value(m.rounds)
        .key("kernel_s").value(m.kernel_s).key("load_s").value(m.load_s).key("check_s").value(m.check_s)
        .key("warmup_s").value(m.warmup_s).key("timing_s").value(m.timing_s);
      if (auto b = baseline.find(r.gpu); b != baseline.end() && m.time_s > 0)
        w.key("speedup").value(b->second / m.time_s);
    } else {
      w.key("time_s").null().key("not_measured_reason").value(r.outcome_text() + (r.detail.empty() ? "" : ": " + r.detail));
    }
    w.end_object();
  }
  w.end_array();
  if (outcome.gpus.empty()) {
    w.key("no_gpu").value(outcome.why_no_gpu);
    w.key("not_measured_reason").value("no GPU: " + outcome.why_no_gpu); // why gpu_busy_fraction is null
  }
  w.end_object();
  std::cout << std::move(w).str() << '\n';
}

// ok when every kernel passed; no_gpu when they all compiled but none could be measured here.
exit_code exit_code_of(const session_outcome& outcome, const std::vector<bench_row>& rows) {
  if (outcome.gpus.empty()) {
    bool compiled_all = true;
    for (const auto& r : rows)
      compiled_all = compiled_all && r.outcome != vocabulary::branch_outcome::compile_error;
    say_no_gpu("bench", outcome.why_no_gpu,
               std::to_string(outcome.result.compiled) + " kernel(s) compiled (" + pipeline::code_check_scope() +
                 "), none measured; recorded in " + outcome.run_dir.string());
    return compiled_all ? exit_code::no_gpu : exit_code::failure;
  }
  return outcome.result.kind == pipeline::campaign_result_kind::finished ? exit_code::ok : exit_code::failure;
}

session_request bench_request(const bench_options& options, config::campaign_spec spec) {
  session_request request;
  request.verb = "bench";
  request.spec = std::move(spec);
  request.spec_path = options.problem_path;
  request.mode = pipeline::campaign_mode::bench;
  request.candidates = options.candidate_paths;
  request.timing = options.cold ? vocabulary::timing_mode::cold : vocabulary::timing_mode::warm;
  request.gpus = options.gpus;
  request.lock_timeout = options.lock_timeout;
  request.watchdog = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(options.watchdog_s));
  request.quiet = options.quiet || options.json;
  return request;
}

} // namespace

exit_code bench(const bench_options& options) {
  auto problem = config::load_problem(options.problem_path);
  if (!problem) {
    std::cerr << toml_reader::to_string(problem.error()) << '\n';
    return exit_code::bad_input;
  }
  for (const auto& path : options.candidate_paths)
    if (auto why = not_a_source_file(path)) {
      std::cerr << "warpforge bench: --candidate " << *why << '\n';
      return exit_code::bad_input;
    }
  auto spec = one_job_campaign("bench-" + problem->name, options.problem_path, options.run_root);
  if (!spec) {
    for (const auto& error : spec.error())
      std::cerr << toml_reader::to_string(error) << '\n';
    return exit_code::bad_input;
  }
  spec->sanitize_champion = options.sanitize; // [verify] sanitize, as a campaign says it
  if (auto why = pipeline::runner_cannot_check(*problem, options.problem_path)) {
    std::cerr << "warpforge bench: " << *why << '\n';
    return exit_code::not_available;
  }
  auto job = pipeline::open_job(problem->name, options.problem_path, *problem);
  if (!job) {
    std::cerr << "warpforge bench: " << job.error() << '\n';
    return exit_code::bad_input;
  }
  auto outcome = run_session(bench_request(options, std::move(*spec)));
  if (!outcome) {
    std::cerr << "warpforge bench: " << outcome.error().message << '\n';
    return outcome.error().code;
  }
  auto results = read_results(outcome->run_dir);
  if (!results) {
    std::cerr << "warpforge bench: " << results.error() << '\n';
    return exit_code::failure;
  }
  compiled_map compiled;
  for (const auto& c : results->compiled)
    compiled[c.at.branch] = &c;
  const auto rows = rows_of(*results);
  if (options.json) {
    write_json(options, rows, compiled, *outcome);
  } else if (outcome->gpus.empty()) {
    // Nothing measured: only the kernels that failed before any GPU (a compile error, a refused
    // instruction) have a row worth printing; the rest would repeat the no-GPU reason.
    std::vector<bench_row> failed;
    for (const auto& r : rows)
      if (r.outcome != vocabulary::branch_outcome::not_run)
        failed.push_back(r);
    if (!failed.empty())
      print_verdicts(options, failed, compiled, pipeline::buffer_bytes(*job));
  } else {
    print_verdicts(options, rows, compiled, pipeline::buffer_bytes(*job));
    print_costs(options, rows, compiled, outcome->result);
  }
  if (!outcome->gpus.empty())
    std::cerr << "recorded in " << outcome->run_dir.string() << '\n';
  logging::shutdown();
  return exit_code_of(*outcome, rows);
}

} // namespace warpforge::cli
