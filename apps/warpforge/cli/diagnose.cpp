// `warpforge diagnose <problem.toml> [--candidate file.cu]`: why is this kernel as fast as it is?
// The kernel (the problem's own, or --candidate) goes through the same pipeline as a campaign (a
// campaign of one job, mode diagnose): compiled, its SASS read for every method the catalog can
// see there, then on every chosen GPU checked against the reference and timed, profiled (CUPTI,
// else ncu) and diagnosed. This command then prints, from what the run recorded: the compile, the
// methods the SASS shows with evidence, and per GPU the time, the bandwidth it implies, the
// metrics, the roofline gaps, the fired rules and the catalog methods the findings call for.
// A kernel that fails its check is reported, never diagnosed; without a GPU it says plainly that
// metrics need one (exit 5). No number is ever made up.

#include "config/toml_reader/placed_error.hpp"
#include "apps/warpforge/cli/commands.hpp"

#include "apps/warpforge/cli/gpu_fleet.hpp"
#include "apps/warpforge/cli/one_job_campaign.hpp"
#include "apps/warpforge/cli/pipeline_session.hpp"
#include "apps/warpforge/cli/recorded_events.hpp"
#include "apps/warpforge/cli/text.hpp"
#include "diagnosis/render.hpp"
#include "foundation/json/writer.hpp"
#include "foundation/logging/logging.hpp"
#include "pipeline/diagnose_metrics.hpp"
#include "pipeline/job_setup.hpp"
#include "pipeline/records.hpp"
#include "sass/disassembler.hpp"
#include "sass/method_catalog.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

namespace warpforge::cli {
namespace {

namespace fs = std::filesystem;

// What the run recorded of the kernel's build and its SASS.
struct front_view {
  std::string label;                    // "baseline" or the candidate's file name
  std::string entry;
  std::string arch;
  bool compiled = false;
  bool cache_hit = false;
  double compile_s = 0;
  std::string cubin;
  std::string log;                      // the compile error
  const checked_record* sass = nullptr; // branch_checked

  /// Whether the SASS could be read at all (a disassembler was here).
  bool sass_read() const { return sass != nullptr && sass->sass_read(); }
};

// What it recorded on one GPU.
struct gpu_view {
  gpu::device_info device;
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run;
  std::string detail;
  const measured_record* measured = nullptr; // branch_measured
  std::optional<gpu::metric_set> metrics;
  std::optional<diagnosis::diagnosis> result;
  std::vector<const sass::method_entry*> methods;
  std::vector<pipeline::method_exclusion> excluded; // called for, but not fitting the measured work
  std::string budget_note;                          // why the budget moved between axes
};

const sass::method_entry* method_of(const std::string& id) {
  for (const auto& m : sass::method_catalog::builtin().methods())
    if (m.signature == id)
      return &m;
  return nullptr;
}

void print_front(const front_view& f) {
  std::printf("Diagnose: %s (entry %s)\n", f.label.c_str(), f.entry.c_str());
  if (!f.compiled) {
    std::printf("Compile (%s): failed\n%s\n", f.arch.c_str(), f.log.c_str());
    return;
  }
  std::printf("Compile (%s): %s %.1f ms -> %s\n", f.arch.c_str(), f.cache_hit ? "cache hit" : "nvrtc",
              f.compile_s * 1e3, f.cubin.c_str());
  if (!f.sass)
    return;
  const std::size_t checked = f.sass->methods.size();
  const auto present = static_cast<std::size_t>(std::count_if(
    f.sass->methods.begin(), f.sass->methods.end(), [](const method_record& m) { return m.presence == sass::method_presence::present; }));
  if (!f.sass_read()) {
    std::printf("SASS (%s): %s, so no disassembly here: each of the %zu SASS-checkable catalog methods "
                "is unavailable, neither present nor absent\n", f.arch.c_str(),
                std::string{sass::not_checked_no_disassembler}.c_str(), checked);
    return;
  }
  std::printf("SASS (%s): %zu of %zu SASS-checkable catalog methods present\n", f.arch.c_str(), present, checked);
  for (const auto& check : f.sass->methods) {
    if (check.presence != sass::method_presence::present)
      continue;
    const auto* m = method_of(check.method);
    std::printf("  %-34s %s\n", check.method.c_str(), m ? m->name.c_str() : "");
    if (!check.evidence.empty())
      std::printf("      %s   (%lld matching)\n", check.evidence.c_str(), static_cast<long long>(check.matches));
  }
}

void print_methods(const gpu_view& g);

void print_gpu(const gpu_view& g, double buffer_bytes) {
  std::printf("\n== GPU %d: %s (%s) ==\n", g.device.ordinal, g.device.name.c_str(), g.device.arch().c_str());
  if (!g.measured) {
    std::printf("Check: %s: %s\nNot diagnosed: a kernel that does not pass its check has no performance worth "
                "explaining.\n", std::string{vocabulary::to_string(g.outcome)}.c_str(), first_line(g.detail, 2000).c_str());
    return;
  }
  const auto& m = *g.measured;
  const double median = m.time_s;
  std::printf("Check: passed (against the reference, on every seed)\n");
  std::printf("Time: median %s (95%% CI %s - %s; %lld samples in %lld rounds, cv %.2f%%; CUDA events, warm L2)\n",
              format_time(median).c_str(), format_time(m.ci95_low_s).c_str(), format_time(m.ci95_high_s).c_str(),
              static_cast<long long>(m.samples), static_cast<long long>(m.rounds), m.cv * 100);
  double bytes = buffer_bytes;
  bool counted = false;
  if (g.result)
    if (auto dram = g.result->metrics.find("dram_bytes"); dram != g.result->metrics.end()) {
      bytes = dram->second;
      counted = true;
    }
  const double achieved = median > 0 ? bytes / median : 0;
  std::printf("Achieved DRAM bandwidth: %s (%s %s over the median time)",
              diagnosis::format_value(achieved, diagnosis::metric_unit::bytes_per_second).c_str(),
              diagnosis::format_value(bytes, diagnosis::metric_unit::bytes).c_str(),
              counted ? "of DRAM traffic, counted" : "(every buffer once: no DRAM counters)");
  const auto peak = g.result ? g.result->gpu.peak_dram_bandwidth() : std::nullopt;
  if (peak && *peak > 0)
    std::printf(" = %s of the peak %s\n", diagnosis::format_value(achieved / *peak, diagnosis::metric_unit::ratio).c_str(),
                diagnosis::format_value(*peak, diagnosis::metric_unit::bytes_per_second).c_str());
  else
    std::printf("\n");
  if (!g.metrics) {
    std::printf("Not diagnosed: no metric set was recorded.\n");
    return;
  }
  std::printf("Metric source: %s (%zu metrics)%s%s\n",
              g.metrics->source ? std::string{gpu::to_string(*g.metrics->source)}.c_str() : "none",
              g.metrics->values.size(), g.metrics->note.empty() ? "" : "\n  note: ", g.metrics->note.c_str());
  if (!g.result) {
    std::printf("Not diagnosed: no counters were read, and a diagnosis without them would be made up.\n");
    return;
  }
  const auto text = diagnosis::render_text(*g.result);
  std::printf("%s%s", diagnosis::to_text(g.result->gpu).c_str(), text.substr(std::min(text.size(), text.find('\n') + 1)).c_str());
  print_methods(g);
}

// The catalog methods the findings call for, and those the measured work rules out.
void print_methods(const gpu_view& g) {
  if (g.result->near_peak) {
    std::printf("Candidate methods: none (near peak: stop optimising)\n");
    return;
  }
  const auto& b = g.result->budget;
  std::printf("Candidate methods (budget: compute %u, memory %u, latency %u; catalog methods the findings name, best "
              "priority first)\n", b.compute, b.memory, b.latency);
  if (g.methods.empty())
    std::printf("  (no catalog method names a fired finding)\n");
  for (const auto* method : g.methods)
    std::printf("  %-8s P%-2u %-34s %s\n", std::string{sass::to_string(method->axis)}.c_str(), method->priority,
                method->id.c_str(), method->name.c_str());
  if (!g.budget_note.empty())
    std::printf("  budget: %s\n", g.budget_note.c_str());
  if (!g.excluded.empty())
    std::printf("Left out (called for by a finding, but not fitting the measured work)\n");
  for (const auto& x : g.excluded)
    std::printf("  %-34s %s\n", x.id.c_str(), x.reason.c_str());
}

// The build and the SASS, as `compile` and `sass` arrays (one architecture: the pipeline builds for
// the first GPU's).
void write_front(json::writer& w, const front_view& f) {
  w.key("compile").begin_array().begin_object().key("arch").value(f.arch).key("ok").value(f.compiled);
  if (f.compiled)
    w.key("cache_hit").value(f.cache_hit).key("compile_s").value(f.compile_s).key("cubin").value(f.cubin);
  else
    w.key("log").value(f.log);
  w.end_object().end_array();
  w.key("sass").begin_array();
  if (f.sass) {
    w.begin_object().key("arch").value(f.arch);
    w.key("status").value(f.sass->sass_read() ? "checked" : "unavailable")
      .key("methods_checked").value(static_cast<std::uint64_t>(f.sass->methods.size()));
    w.key("present").begin_array();
    for (const auto& check : f.sass->methods)
      if (check.presence == sass::method_presence::present)
        w.begin_object().key("id").value(check.method).key("match_count").value(check.matches)
          .key("evidence").value(check.evidence).end_object();
    w.end_array().end_object();
  }
  w.end_array();
}

void write_gpu(json::writer& w, const gpu_view& g) {
  w.begin_object().key("gpu").value(g.device.ordinal).key("name").value(g.device.name).key("arch").value(g.device.arch());
  w.key("outcome").value(vocabulary::to_string(g.outcome));
  if (!g.detail.empty())
    w.key("detail").value(g.detail);
  if (g.measured)
    w.key("time").begin_object().key("median_s").value(g.measured->time_s)
      .key("ci95_low_s").value(g.measured->ci95_low_s).key("ci95_high_s").value(g.measured->ci95_high_s)
      .key("cv").value(g.measured->cv).key("samples").value(g.measured->samples).end_object();
  if (g.metrics)
    w.key("metric_source").value(g.metrics->source ? std::string{gpu::to_string(*g.metrics->source)} : "none")
      .key("metric_note").value(g.metrics->note);
  if (!g.result) {
    w.key("diagnosis").null().end_object();
    return;
  }
  const auto& d = *g.result;
  w.key("metrics").begin_object();
  for (const auto& [key, value] : d.metrics)
    w.key(key).value(value);
  w.end_object();
  w.key("gaps").begin_object().key("compute").value(d.gaps.compute).key("memory").value(d.gaps.memory)
    .key("latency").value(d.gaps.latency).key("degraded").value(d.gaps.degraded).end_object();
  // The hierarchical roofline: the level that binds the kernel, every level's gap, its advice.
  w.key("binding").begin_object().key("kind").value(diagnosis::to_string(d.levels.kind));
  if (d.levels.binding)
    w.key("level").value(diagnosis::to_string(*d.levels.binding));
  else
    w.key("level").null();
  w.key("headline").value(d.levels.headline).key("uncoalesced").value(d.levels.uncoalesced);
  w.key("levels").begin_array();
  for (const auto& r : d.levels.levels)
    w.begin_object().key("level").value(diagnosis::to_string(r.level)).key("metric").value(r.key)
      .key("utilisation").value(r.utilisation).key("gap").value(r.gap).end_object();
  w.end_array();
  w.key("playbook").value(d.advice.playbook).key("first_methods").begin_array();
  for (const auto& m : d.advice.first)
    w.begin_object().key("id").value(m.id).key("why").value(m.why).end_object();
  w.end_array().end_object();
  w.key("near_peak").value(d.near_peak).key("widest_gap").value(diagnosis::to_string(d.widest));
  w.key("budget").begin_object().key("compute").value(d.budget.compute).key("memory").value(d.budget.memory)
    .key("latency").value(d.budget.latency).end_object();
  w.key("findings").begin_array();
  for (const auto& f : d.findings)
    w.begin_object().key("id").value(f.rule_id).key("severity").value(diagnosis::to_string(f.level))
      .key("text").value(f.text).key("action").value(f.action).key("source").value(f.source).end_object();
  w.end_array();
  w.key("candidate_methods").begin_array();
  for (const auto* m : g.methods)
    w.begin_object().key("id").value(m->id).key("axis").value(sass::to_string(m->axis)).key("priority").value(m->priority)
      .key("name").value(m->name).end_object();
  w.end_array();
  w.key("excluded_methods").begin_array();
  for (const auto& x : g.excluded)
    w.begin_object().key("id").value(x.id).key("reason").value(x.reason).end_object();
  w.end_array();
  w.end_object();
}

// The front and every GPU's view, from the run's recorded results and its metric files.
std::pair<front_view, std::vector<gpu_view>> read_views(const session_outcome& o, const recorded_results& results,
                                                         const std::string& problem_name,
                                                         const pipeline::work_context& context) {
  front_view front;
  std::vector<gpu_view> gpus;
  for (const auto& d : o.gpus) {
    gpus.emplace_back();
    gpus.back().device = d;
  }
  auto gpu_of = [&](int ordinal) -> gpu_view* {
    for (auto& g : gpus)
      if (g.device.ordinal == ordinal)
        return &g;
    return nullptr;
  };
  for (const auto& c : results.compiled) {
    front.compiled = true;
    front.arch = c.arch;
    front.cache_hit = c.cache_hit;
    front.compile_s = c.compile_s;
    front.cubin = (pipeline::branch_folder(o.run_dir, problem_name, 1, 0) / ("kernel-" + front.arch + ".cubin")).string();
  }
  if (!results.checked.empty())
    front.sass = &results.checked.back();
  // Per GPU the latest verdict: measured, or failed with its outcome.
  std::map<int, std::int64_t> verdict_seq;
  auto newer = [&](const recorded_place& at) {
    auto& seq = verdict_seq[at.gpu];
    return at.seq >= seq ? (seq = at.seq, true) : false;
  };
  for (const auto& m : results.measured)
    if (auto* g = gpu_of(m.at.gpu); g && newer(m.at)) {
      g->outcome = vocabulary::branch_outcome::passed;
      g->measured = &m;
      g->detail.clear();
    }
  for (const auto& f : results.failed) {
    if (f.at.gpu < 0 && f.outcome == vocabulary::branch_outcome::compile_error) {
      front.log = f.detail;
    } else if (auto* g = gpu_of(f.at.gpu); g && newer(f.at)) {
      g->outcome = f.outcome;
      g->detail = f.detail;
      g->measured = nullptr;
    }
  }
  for (auto& g : gpus) {
    const auto file = pipeline::branch_folder(o.run_dir, problem_name, 1, 0) /
                      ("metrics-gpu" + std::to_string(g.device.ordinal) + ".json");
    if (auto kept = pipeline::read_metric_file(file)) {
      g.metrics = kept->metrics;
      g.result = pipeline::diagnose_metrics(kept->metrics, g.device);
      if (g.result) {
        auto choice = pipeline::choose_methods(*g.result, g.device.sm_major * 10 + g.device.sm_minor, context);
        g.methods = std::move(choice.chosen);
        g.excluded = std::move(choice.excluded);
        g.budget_note = std::move(choice.budget_note);
      }
    }
  }
  return {front, gpus};
}

void print_json(const std::string& problem, const front_view& front, const std::vector<gpu_view>& gpus,
                const session_outcome& outcome) {
  json::writer w;
  w.begin_object().key("problem").value(problem).key("kernel").value(front.label).key("entry").value(front.entry)
    .key("run_dir").value(outcome.run_dir.string());
  write_front(w, front);
  w.key("gpus").begin_array();
  for (const auto& g : gpus)
    write_gpu(w, g);
  w.end_array();
  if (gpus.empty())
    w.key("no_gpu").value(outcome.why_no_gpu);
  w.end_object();
  std::cout << std::move(w).str() << '\n';
}

void print_text(const front_view& front, const std::vector<gpu_view>& gpus, double buffer_bytes,
                const session_outcome& outcome) {
  print_front(front);
  for (const auto& g : gpus)
    print_gpu(g, buffer_bytes);
  if (gpus.empty() && front.compiled)
    std::printf("\nNot diagnosed: metrics need a GPU, and none is usable here (%s). The kernel was compiled%s; "
                "nothing was measured.\n  %s\n",
                gpu::short_no_gpu_reason(outcome.why_no_gpu).c_str(),
                front.sass_read() ? " and its SASS read" : (" (SASS " + std::string{sass::not_checked_no_disassembler} + ")").c_str(),
                std::string{no_gpu_next_step}.c_str());
}

// Failure when it did not compile or a GPU could not diagnose it; no_gpu when none was here.
exit_code exit_code_of(const front_view& front, const std::vector<gpu_view>& gpus) {
  if (!front.compiled)
    return exit_code::failure;
  if (gpus.empty())
    return exit_code::no_gpu;
  for (const auto& g : gpus)
    if (!g.result)
      return exit_code::failure;
  return exit_code::ok;
}

} // namespace

exit_code diagnose(const diagnose_options& options) {
  constexpr const char* me = "warpforge diagnose: ";
  auto problem = config::load_problem(options.problem_path);
  if (!problem) {
    std::cerr << toml_reader::to_string(problem.error()) << '\n';
    return exit_code::bad_input;
  }
  const bool candidate = !options.candidate_path.empty();
  if (auto why = candidate ? not_a_source_file(options.candidate_path) : std::nullopt) {
    std::cerr << me << "--candidate " << *why << '\n';
    return exit_code::bad_input;
  }
  if (auto why = pipeline::runner_cannot_check(*problem, options.problem_path)) {
    std::cerr << me << *why << '\n';
    return exit_code::not_available;
  }
  auto job = pipeline::open_job(problem->name, options.problem_path, *problem);
  if (!job) {
    std::cerr << me << job.error() << '\n';
    return exit_code::bad_input;
  }
  auto spec = one_job_campaign("diagnose-" + problem->name, options.problem_path, options.run_root);
  if (!spec) {
    for (const auto& error : spec.error())
      std::cerr << toml_reader::to_string(error) << '\n';
    return exit_code::bad_input;
  }
  session_request request;
  request.verb = "diagnose";
  request.spec = std::move(*spec);
  request.spec_path = options.problem_path;
  request.mode = pipeline::campaign_mode::diagnose;
  if (candidate)
    request.candidates = {options.candidate_path};
  request.gpus = options.gpus;
  request.lock_timeout = options.lock_timeout;
  request.watchdog = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::duration<double>(options.watchdog_s));
  auto outcome = run_session(request);
  if (!outcome) {
    std::cerr << me << outcome.error().message << '\n';
    return outcome.error().code;
  }
  auto results = read_results(outcome->run_dir);
  if (!results) {
    std::cerr << me << results.error() << '\n';
    return exit_code::failure;
  }
  auto [front, gpus] = read_views(*outcome, *results, problem->name, pipeline::work_context_of(*job));
  front.label = candidate ? fs::path{options.candidate_path}.filename().string() : "baseline";
  front.entry = problem->kernel.entry;
  if (options.json)
    print_json(problem->name, front, gpus, *outcome);
  else
    print_text(front, gpus, pipeline::buffer_bytes(*job), *outcome);
  std::cerr << "recorded in " << outcome->run_dir.string() << '\n';
  logging::shutdown();
  return exit_code_of(front, gpus);
}

} // namespace warpforge::cli
