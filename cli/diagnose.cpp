// `warpforge diagnose <problem.toml> [--candidate file.cu]`: why is this kernel as fast as it is?
// In steps, each on the real component:
//   1. compile the kernel (the problem's own, or --candidate) and the reference for each chosen
//      GPU's architecture; the CUBIN goes into a run directory;
//   2. read its SASS (nvdisasm / cuobjdump) and say which catalog methods it shows, with evidence;
//   3. on each GPU, through that GPU's gpu_worker: check it against the reference and time it
//      (run_request), then take its counters in separate passes (profile_request: CUPTI, else ncu);
//   4. diagnose the counters against the GPU's peaks (diagnosis::diagnose): gaps, near peak,
//      fired rules, the method budget, and the catalog methods the findings call for.
// A kernel that fails its check is reported, never diagnosed. Without a GPU, steps 1-2 run and it
// says plainly that metrics need one (exit 5); no number is ever made up. Everything is recorded
// in the run directory (iteration 1, one branch, its measurement, the gaps) and on the feed
// (branch_compiled, branch_measured / branch_failed, diagnosis_ready).

#include "cli/commands.hpp"

#include "cli/gpu_fleet.hpp"
#include "cli/kernel_build.hpp"
#include "cli/recording.hpp"
#include "cli/text.hpp"
#include "config/defaults.hpp"
#include "diagnosis/diagnose.hpp"
#include "diagnosis/render.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "gpu/runner/race_request.hpp"
#include "json/writer.hpp"
#include "logging/logging.hpp"
#include "sass/disassembler.hpp"
#include "sass/method_catalog.hpp"
#include "sass/method_check.hpp"

#include <caf/scoped_actor.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

namespace warpforge::cli {
namespace {

namespace fs = std::filesystem;

// The one kernel being diagnosed.
struct diagnosed_kernel {
  std::string label; // "baseline" or the candidate's file name
  kernel_source source;
  vocabulary::branch_kind kind = vocabulary::branch_kind::baseline;
  std::int64_t branch_id = 0; // its row in the store
};

// Step 1's result for one architecture.
struct build {
  std::string arch;
  gpu::compile_result kernel;
  gpu::compile_result reference;
  fs::path kernel_cubin;
  fs::path reference_cubin;

  bool ok() const { return kernel && reference; }
  // The first failure's log, naming which of the two failed.
  std::string failure() const {
    if (!kernel)
      return kernel.error().log;
    return reference ? std::string{} : "the reference: " + reference.error().log;
  }
};

// Step 2's result for one architecture: every SASS-checkable method of the catalog.
struct sass_report {
  std::string arch;
  std::optional<sass::disassemble_failure> failure; // no disassembly: every check is unavailable
  std::vector<sass::method_check> checks;           // in catalog order
};

// Steps 3-4 for one GPU.
struct gpu_diagnosis {
  int ordinal = -1;
  const gpu::device_info* device = nullptr;
  std::string arch;
  std::string outcome = "not_run";          // the check's branch outcome
  std::string detail;                       // why, when not passed
  std::optional<messages::measurement> run; // the check and timing (passed only)
  std::optional<messages::metric_set> metrics;
  std::optional<diagnosis::diagnosis> result;
  std::vector<const sass::method_entry*> methods; // candidate methods, by axis then priority
};

std::string_view to_string(messages::metric_source source) {
  switch (source) {
  case messages::metric_source::cupti: return "cupti";
  case messages::metric_source::ncu: return "ncu";
  case messages::metric_source::none: return "none";
  }
  return "none";
}


// --- step 2: SASS -------------------------------------------------------------------------------

sass_report check_sass(const std::string& arch, const fs::path& cubin) {
  const auto& catalog = sass::method_catalog::builtin();
  const auto& table = sass::signature_table::builtin();
  std::vector<std::string> ids;
  for (const auto& m : catalog.methods())
    if (const auto* signature = table.find(m.signature);
        signature != nullptr && signature->verify == sass::verify_mode::sass)
      ids.push_back(m.signature);
  sass_report report;
  report.arch = arch;
  auto listing = sass::disassemble(cubin);
  if (!listing)
    report.failure = listing.error();
  report.checks = sass::check_methods(listing, table, ids);
  return report;
}

// The catalog method a signature check answers for.
const sass::method_entry* method_of(const sass::method_check& check) {
  for (const auto& m : sass::method_catalog::builtin().methods())
    if (m.signature == check.id)
      return &m;
  return nullptr;
}

// --- step 4: methods the findings call for --------------------------------------------------------

// Catalog methods that some fired finding names, best priority first within each axis, at most
// the budget's count per axis, never two coupled methods, none that needs a newer architecture
// than `sm` (compute capability x 10; 0: unknown, no filter). None when near peak: the loop stops.
std::vector<const sass::method_entry*> candidate_methods(const diagnosis::diagnosis& d, int sm) {
  std::vector<const sass::method_entry*> chosen;
  if (d.near_peak)
    return chosen;
  const auto& catalog = sass::method_catalog::builtin();
  auto fired = [&](const sass::method_entry& m) {
    for (const auto& f : d.findings)
      for (const auto& id : m.findings)
        if (id == f.rule_id)
          return true;
    return false;
  };
  for (auto axis : sass::all_method_axes) {
    const auto roofline_axis = diagnosis::roofline_axis_from_string(sass::to_string(axis));
    std::uint32_t budget = roofline_axis ? d.budget.of(*roofline_axis) : 0;
    for (const auto* m : catalog.on_axis(axis)) {
      if (budget == 0)
        break;
      if (!fired(*m) || (sm > 0 && m->min_sm > static_cast<std::uint32_t>(sm)))
        continue;
      bool coupled = false;
      for (const auto* c : chosen)
        coupled = coupled || catalog.coupled(c->id, m->id);
      if (coupled)
        continue;
      chosen.push_back(m);
      --budget;
    }
  }
  return chosen;
}

// --- the measured time and the bandwidth it implies -----------------------------------------------

struct bandwidth_view {
  double bytes = 0;                  // bytes moved
  bool bytes_measured = false;       // DRAM bytes from the counters (else: every buffer once)
  double achieved = 0;               // bytes/s over the event-timed median
  std::optional<double> peak;        // bytes/s
  std::string peak_kind;             // "published" or "theoretical"
};

bandwidth_view bandwidth_of(const gpu_diagnosis& g, double buffer_bytes) {
  bandwidth_view v;
  v.bytes = buffer_bytes;
  if (g.result)
    if (auto dram = g.result->metrics.find("dram_bytes"); dram != g.result->metrics.end()) {
      v.bytes = dram->second;
      v.bytes_measured = true;
    }
  const double median = g.run ? g.run->timing.median_s : 0;
  v.achieved = median > 0 ? v.bytes / median : 0;
  if (g.result) {
    v.peak = g.result->gpu.peak_dram_bandwidth();
    v.peak_kind = g.result->gpu.dram_bandwidth_table ? "published" : "theoretical";
  }
  return v;
}

// --- text output ------------------------------------------------------------------------------------

void print_build(const build& b) {
  if (!b.ok()) {
    std::printf("Compile (%s): failed\n%s\n", b.arch.c_str(), b.failure().c_str());
    return;
  }
  std::printf("Compile (%s): %s %.1f ms -> %s\n", b.arch.c_str(), b.kernel->cache_hit ? "cache hit" : "nvrtc",
              b.kernel->compile_s * 1e3, b.kernel_cubin.string().c_str());
}

void print_sass(const sass_report& r) {
  if (r.failure) {
    std::printf("SASS (%s): %s\n  (none of the %zu SASS-checkable catalog methods could be "
                "checked: each is unavailable, neither present nor absent)\n",
                r.arch.c_str(), r.failure->to_string().c_str(), r.checks.size());
    return;
  }
  std::size_t present = 0;
  for (const auto& c : r.checks)
    present += c.presence == sass::method_presence::present;
  std::printf("SASS (%s): %zu of %zu SASS-checkable catalog methods present\n", r.arch.c_str(), present,
              r.checks.size());
  for (const auto& c : r.checks) {
    if (c.presence != sass::method_presence::present)
      continue;
    const auto* m = method_of(c);
    std::printf("  %-34s %s\n", c.id.c_str(), m ? m->name.c_str() : "");
    if (!c.matches.empty()) {
      const auto& e = c.matches.front();
      std::printf("      %s +0x%04llx: %s   (%zu matching)\n", e.kernel.c_str(),
                  static_cast<unsigned long long>(e.address), e.text.c_str(), c.match_count);
    }
  }
}

// diagnosis::render_text opens with a one-line "GPU: ..." header; to_text(gpu) above says more.
std::string without_first_line(const std::string& text) {
  const auto eol = text.find('\n');
  return eol == std::string::npos ? std::string{} : text.substr(eol + 1);
}

void print_gpu(const gpu_diagnosis& g, double buffer_bytes) {
  std::printf("\n== GPU %d: %s (%s) ==\n", g.ordinal, g.device->name.c_str(), g.arch.c_str());
  if (!g.run) {
    std::printf("Check: %s: %s\nNot diagnosed: a kernel that does not pass its check has no "
                "performance worth explaining.\n",
                g.outcome.c_str(), first_line(g.detail, 2000).c_str());
    return;
  }
  const auto& t = g.run->timing;
  std::printf("Check: passed (%u seeds against the reference)\n", g.run->correctness.seeds_checked);
  std::printf("Time: median %s (95%% CI %s - %s; %u samples, cv %.2f%%; CUDA events, warm L2)\n",
              format_time(t.median_s).c_str(), format_time(t.ci95_low_s).c_str(),
              format_time(t.ci95_high_s).c_str(), t.samples, t.cv * 100);
  const auto bw = bandwidth_of(g, buffer_bytes);
  std::printf("Achieved DRAM bandwidth: %s (%s %s over the median time)",
              diagnosis::format_value(bw.achieved, diagnosis::metric_unit::bytes_per_second).c_str(),
              diagnosis::format_value(bw.bytes, diagnosis::metric_unit::bytes).c_str(),
              bw.bytes_measured ? "of DRAM traffic, counted" : "(every buffer once: no DRAM counters)");
  if (bw.peak && *bw.peak > 0)
    std::printf(" = %s of the %s peak %s\n",
                diagnosis::format_value(bw.achieved / *bw.peak, diagnosis::metric_unit::ratio).c_str(),
                bw.peak_kind.c_str(),
                diagnosis::format_value(*bw.peak, diagnosis::metric_unit::bytes_per_second).c_str());
  else
    std::printf("; peak unknown (the GPU is not in the table and did not report its memory clock "
                "and bus width)\n");

  const auto& set = *g.metrics;
  std::printf("Metric source: %s (%zu metrics)%s%s\n", std::string{to_string(set.source)}.c_str(),
              set.values.size(), set.note.empty() ? "" : "\n  note: ", set.note.c_str());
  if (!g.result) {
    std::printf("Not diagnosed: no counters were read, and a diagnosis without them would be made "
                "up.\n");
    return;
  }
  std::printf("%s", diagnosis::to_text(g.result->gpu).c_str());
  std::printf("%s", without_first_line(diagnosis::render_text(*g.result)).c_str());
  const auto& b = g.result->budget;
  if (g.result->near_peak) {
    std::printf("Candidate methods: none (near peak: stop optimising)\n");
    return;
  }
  std::printf("Candidate methods (budget: compute %u, memory %u, latency %u; catalog methods the "
              "findings name, best priority first)\n",
              b.compute, b.memory, b.latency);
  if (g.methods.empty())
    std::printf("  (no catalog method names a fired finding)\n");
  for (const auto* m : g.methods) {
    std::string why;
    for (const auto& f : g.result->findings)
      for (const auto& id : m->findings)
        if (id == f.rule_id)
          why += (why.empty() ? "" : ", ") + id;
    std::printf("  %-8s P%-2u %-34s %s  [%s]\n", std::string{sass::to_string(m->axis)}.c_str(), m->priority,
                m->id.c_str(), m->name.c_str(), why.c_str());
  }
}

// --- JSON output ----------------------------------------------------------------------------------

void write_sass(json::writer& w, const sass_report& r) {
  w.begin_object().key("arch").value(r.arch);
  if (r.failure) {
    w.key("status").value(sass::to_string(r.failure->kind)).key("reason").value(r.failure->detail)
      .key("methods_unavailable").value(r.checks.size());
  } else {
    w.key("status").value("checked").key("methods_checked").value(r.checks.size());
    w.key("present").begin_array();
    for (const auto& c : r.checks) {
      if (c.presence != sass::method_presence::present)
        continue;
      w.begin_object().key("id").value(c.id).key("match_count").value(c.match_count);
      if (!c.matches.empty())
        w.key("evidence").value(c.matches.front().kernel + " +" + std::to_string(c.matches.front().address) +
                                ": " + c.matches.front().text);
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
}

void write_gpu(json::writer& w, const gpu_diagnosis& g, double buffer_bytes) {
  w.begin_object().key("gpu").value(g.ordinal).key("name").value(g.device->name).key("arch").value(g.arch);
  w.key("outcome").value(g.outcome);
  if (!g.detail.empty())
    w.key("detail").value(g.detail);
  if (!g.run) {
    w.end_object();
    return;
  }
  const auto& t = g.run->timing;
  w.key("time").begin_object()
    .key("median_s").value(t.median_s)
    .key("ci95_low_s").value(t.ci95_low_s)
    .key("ci95_high_s").value(t.ci95_high_s)
    .key("cv").value(t.cv)
    .key("samples").value(t.samples)
    .end_object();
  const auto bw = bandwidth_of(g, buffer_bytes);
  w.key("dram_bandwidth").begin_object()
    .key("achieved_bytes_per_s").value(bw.achieved)
    .key("bytes").value(bw.bytes)
    .key("bytes_from").value(bw.bytes_measured ? "counters" : "buffers");
  if (bw.peak && *bw.peak > 0)
    w.key("peak_bytes_per_s").value(*bw.peak).key("peak_kind").value(bw.peak_kind)
      .key("fraction_of_peak").value(bw.achieved / *bw.peak);
  else
    w.key("peak_bytes_per_s").null();
  w.end_object();
  w.key("metric_source").value(to_string(g.metrics->source)).key("metric_note").value(g.metrics->note);
  if (!g.result) {
    w.key("diagnosis").null().end_object();
    return;
  }
  const auto& d = *g.result;
  w.key("gpu_match").value(diagnosis::to_string(d.gpu.match));
  w.key("metrics").begin_object();
  for (const auto& [key, value] : d.metrics)
    w.key(key).value(value);
  w.end_object();
  w.key("gaps").begin_object()
    .key("compute").value(d.gaps.compute)
    .key("memory").value(d.gaps.memory)
    .key("latency").value(d.gaps.latency)
    .key("degraded").value(d.gaps.degraded)
    .end_object();
  w.key("near_peak").value(d.near_peak).key("widest_gap").value(diagnosis::to_string(d.widest));
  w.key("budget").begin_object()
    .key("compute").value(d.budget.compute)
    .key("memory").value(d.budget.memory)
    .key("latency").value(d.budget.latency)
    .end_object();
  w.key("findings").begin_array();
  for (const auto& f : d.findings)
    w.begin_object().key("id").value(f.rule_id).key("severity").value(diagnosis::to_string(f.level))
      .key("text").value(f.text).key("action").value(f.action).key("source").value(f.source).end_object();
  w.end_array();
  w.key("not_evaluated").begin_array();
  for (const auto& r : d.not_evaluated)
    w.begin_object().key("id").value(r.rule_id).key("why").value(r.problem.message).end_object();
  w.end_array();
  w.key("candidate_methods").begin_array();
  for (const auto* m : g.methods)
    w.begin_object().key("id").value(m->id).key("axis").value(sass::to_string(m->axis))
      .key("priority").value(m->priority).key("name").value(m->name).end_object();
  w.end_array();
  w.key("notes").begin_array();
  for (const auto& note : d.notes)
    w.value(note);
  w.end_array();
  w.end_object();
}

// Step 4 on one GPU whose counters came back: the diagnosis against its own peaks, and the
// catalog methods its findings call for.
void diagnose_on(gpu_diagnosis& g) {
  diagnosis::metric_values measured;
  for (const auto& v : g.metrics->values)
    measured[v.key] = v.value;
  g.result = diagnosis::diagnose(
    measured, diagnosis::describe_gpu(diagnosis::builtin_gpu_table(), properties_of(*g.device)));
  g.methods = candidate_methods(*g.result, g.device->sm_major * 10 + g.device->sm_minor);
}

// The diagnosis_ready event's detail (docs/events.md): the widest gap as `bound`, the gaps, near
// peak, the fired rule ids, the metric source, and the fraction of the roofline reached when a
// peak is known.
std::string diagnosis_ready_detail(const gpu_diagnosis& g) {
  const auto& d = *g.result;
  json::writer gaps;
  gaps.begin_object().key("compute").value(d.gaps.compute).key("memory").value(d.gaps.memory)
    .key("latency").value(d.gaps.latency).end_object();
  json::writer findings;
  findings.begin_array();
  for (const auto& f : d.findings)
    findings.value(f.rule_id);
  findings.end_array();
  feed::detail detail;
  detail.add("bound", diagnosis::to_string(d.widest))
    .add_raw("gaps", gaps.view())
    .add("near_peak", d.near_peak)
    .add_raw("findings", findings.view())
    .add("source", to_string(g.metrics->source));
  if (d.roofline.bandwidth_fraction || d.roofline.compute_fraction)
    detail.add("roofline_fraction", std::max(d.roofline.bandwidth_fraction.value_or(0),
                                             d.roofline.compute_fraction.value_or(0)));
  return detail.json();
}

// The gaps as stored in iterations.gaps_json (the first GPU diagnosed).
std::string gaps_json(const gpu_diagnosis& g) {
  const auto& d = *g.result;
  json::writer w;
  w.begin_object()
    .key("compute").value(d.gaps.compute)
    .key("memory").value(d.gaps.memory)
    .key("latency").value(d.gaps.latency)
    .key("degraded").value(d.gaps.degraded)
    .key("near_peak").value(d.near_peak)
    .key("widest").value(diagnosis::to_string(d.widest))
    .key("gpu").value(g.ordinal)
    .key("gpu_name").value(g.device->name)
    .key("source").value(to_string(g.metrics->source))
    .end_object();
  return std::move(w).str();
}

} // namespace

exit_code diagnose(const diagnose_options& options) {
  constexpr const char* me = "warpforge diagnose: ";
  auto spec = config::load_problem(options.problem_path);
  if (!spec) {
    std::cerr << config::to_string(spec.error()) << '\n';
    return exit_code::bad_input;
  }
  auto resolved = config::resolve_problem(*spec, config::default_point(*spec));
  if (!resolved) {
    std::cerr << config::to_string(resolved.error()) << '\n';
    return exit_code::bad_input;
  }
  if (spec->reference.kind == config::reference_kind::file) {
    std::cerr << me << options.problem_path
              << ": a reference from an expected-values file is not supported by the runner yet\n";
    return exit_code::not_available;
  }
  const auto& reference_spec =
    spec->reference.kind == config::reference_kind::kernel ? spec->reference.kernel : spec->kernel;
  auto reference = read_kernel(reference_spec.source, reference_spec.entry, reference_spec.flags);
  if (!reference) {
    std::cerr << me << reference.error() << '\n';
    return exit_code::bad_input;
  }
  const bool candidate = !options.candidate_path.empty();
  auto source = read_kernel(candidate ? fs::path{options.candidate_path} : spec->kernel.source,
                            spec->kernel.entry, spec->kernel.flags);
  if (!source) {
    std::cerr << me << (candidate ? "--candidate: " : "") << source.error() << '\n';
    return exit_code::bad_input;
  }
  diagnosed_kernel kernel{candidate ? fs::path{options.candidate_path}.filename().string() : "baseline",
                          std::move(*source),
                          candidate ? vocabulary::branch_kind::branch : vocabulary::branch_kind::baseline, 0};

  auto fleet = discover_gpus(options.gpus);
  if (!fleet) {
    std::cerr << me << fleet.error() << '\n';
    return exit_code::usage;
  }

  // --- the run directory and its records ---
  feed::publisher_options feed_options;
  feed_options.endpoint = "tcp://127.0.0.1:*"; // never collides with a campaign's feed
  const std::string run_name = "diagnose-" + spec->name;
  auto started = start_recording(options.run_root, run_name, feed_options, {});
  if (!started) {
    std::cerr << me << started.error().message << '\n';
    return started.error().code;
  }
  auto& dir = started->dir;
  auto& runtime = *started->runtime;
  auto campaign_id =
    runtime.record(messages::campaign_record{run_name, options.problem_path, spec->raw_text, dir.path().string()});
  auto job_id = campaign_id ? runtime.record(messages::job_record{*campaign_id, spec->name, options.problem_path})
                            : campaign_id;
  auto iteration_id = job_id ? runtime.record(messages::iteration_record{*job_id, 1}) : job_id;
  expected<std::int64_t, std::string> branch_id = iteration_id;
  if (iteration_id) {
    const auto branch_dir = dir.branch_dir(spec->name, 1, 0);
    fs::create_directories(branch_dir);
    const auto source_copy = branch_dir / kernel.source.path.filename();
    fs::copy_file(kernel.source.path, source_copy, fs::copy_options::overwrite_existing);
    branch_id = runtime.record(messages::branch_record{*iteration_id, 0, kernel.kind, 0, "[]", "{}",
                                                       fs::relative(source_copy, dir.path()).string()});
  }
  if (!branch_id) {
    std::cerr << me << "cannot record: " << branch_id.error() << '\n';
    return exit_code::failure;
  }
  kernel.branch_id = *branch_id;
  std::cerr << me << spec->name << " (" << kernel.label << ") -> " << dir.path().string() << "  (feed "
            << runtime.feed_endpoint() << ")\n";
  auto emit = [&](feed::event_type type, int gpu_ordinal, std::string detail_json) {
    feed::event e;
    e.type = type;
    e.job = spec->name;
    e.iter = 1;
    e.branch = 0;
    e.gpu = gpu_ordinal;
    e.detail_json = std::move(detail_json);
    runtime.emit(std::move(e));
  };
  std::string failure_reason; // the first thing that went wrong, for the job and campaign rows
  auto finish = [&](exit_code code, std::string gaps) {
    const bool ok = code == exit_code::ok;
    messages::iteration_update update;
    update.iteration_id = *iteration_id;
    update.state = ok ? vocabulary::iteration_state::finished : vocabulary::iteration_state::failed;
    update.finished = true;
    update.gaps_json = std::move(gaps);
    runtime.record(update);
    runtime.record(messages::job_state_change{*job_id, ok ? vocabulary::job_state::finished : vocabulary::job_state::failed,
                                              failure_reason});
    runtime.record(messages::campaign_state_change{
      *campaign_id, ok ? vocabulary::campaign_state::finished : vocabulary::campaign_state::failed, failure_reason});
    runtime.stop();
    std::cerr << "recorded in " << dir.path().string() << '\n';
    logging::shutdown();
    return code;
  };

  // --- step 1: compile, once per architecture in use ---
  gpu::cached_compiler compiler{gpu::compile_cache{gpu::default_cache_root()}};
  const std::vector<int> targets = fleet->usable() ? fleet->chosen : std::vector<int>{-1};
  auto device_of = [&](int ordinal) { return ordinal < 0 ? nullptr : &fleet->device(ordinal); };
  std::map<std::string, build> builds;
  std::map<std::string, sass_report> sass_reports;
  std::vector<std::string> arch_order;
  auto compile_one = [&](const kernel_source& k, const std::string& arch, const fs::path& cubin) {
    auto result = compiler.compile(compile_request_for(k, arch, *resolved));
    if (result)
      if (auto written = write_cubin(cubin, result->cubin); !written)
        result = unexpected{gpu::compile_failure{gpu::compile_failure_kind::internal, written.error()}};
    return result;
  };
  for (int ordinal : targets) {
    const std::string arch = arch_for(*spec, device_of(ordinal));
    if (builds.count(arch) > 0)
      continue;
    arch_order.push_back(arch);
    const auto cubins = dir.path() / "cubins" / arch;
    build b{arch, compile_one(kernel.source, arch, cubins / "branch-0.cubin"),
            compile_one(*reference, arch, cubins / "reference.cubin"), cubins / "branch-0.cubin",
            cubins / "reference.cubin"};
    if (b.ok()) {
      emit(feed::event_type::branch_compiled, ordinal,
           feed::detail{}.add("arch", arch).add("cache_hit", b.kernel->cache_hit)
             .add("compile_s", b.kernel->compile_s).json());
      // --- step 2: what the SASS shows ---
      sass_reports.emplace(arch, check_sass(arch, b.kernel_cubin));
    } else {
      emit(feed::event_type::branch_failed, ordinal,
           feed::detail{}.add("outcome", "compile_error").add("stage", "compile")
             .add("reason", first_line(b.failure(), 2000)).json());
      runtime.record(messages::branch_outcome_change{kernel.branch_id, vocabulary::branch_outcome::compile_error,
                                                     first_line(b.failure(), 2000)});
      if (failure_reason.empty())
        failure_reason = "compile_error (" + arch + "): " + first_line(b.failure());
    }
    builds.emplace(arch, std::move(b));
  }
  double buffer_bytes = 0;
  for (const auto& arg : resolved->args)
    if (const auto* buffer = std::get_if<config::resolved_buffer>(&arg))
      buffer_bytes += static_cast<double>(buffer->bytes);

  auto print_front = [&] {
    std::printf("Diagnose %s: %s (entry %s)\n", spec->name.c_str(), kernel.label.c_str(),
                kernel.source.entry.c_str());
    for (const auto& arch : arch_order) {
      print_build(builds.at(arch));
      if (auto s = sass_reports.find(arch); s != sass_reports.end())
        print_sass(s->second);
    }
  };
  auto write_front = [&](json::writer& w) {
    w.key("problem").value(spec->name).key("kernel").value(kernel.label)
      .key("entry").value(kernel.source.entry).key("run_dir").value(dir.path().string());
    w.key("compile").begin_array();
    for (const auto& arch : arch_order) {
      const auto& b = builds.at(arch);
      w.begin_object().key("arch").value(arch).key("ok").value(b.ok());
      if (b.ok())
        w.key("cache_hit").value(b.kernel->cache_hit).key("compile_s").value(b.kernel->compile_s)
          .key("cubin").value(b.kernel_cubin.string());
      else
        w.key("log").value(b.failure());
      w.end_object();
    }
    w.end_array();
    w.key("sass").begin_array();
    for (const auto& arch : arch_order)
      if (auto s = sass_reports.find(arch); s != sass_reports.end())
        write_sass(w, s->second);
    w.end_array();
  };

  const bool compiled = failure_reason.empty();
  if (!compiled || !fleet->usable()) {
    const std::string why = !compiled ? "" : "metrics need a GPU, and none is usable here (" + fleet->why_none + ")";
    if (compiled) {
      failure_reason = "not diagnosed: " + why;
      runtime.record(messages::branch_outcome_change{kernel.branch_id, vocabulary::branch_outcome::not_run, why});
      emit(feed::event_type::branch_failed, feed::no_gpu,
           feed::detail{}.add("outcome", "not_run").add("stage", "measure").add("reason", why).json());
    }
    if (options.json) {
      json::writer w;
      w.begin_object();
      write_front(w);
      w.key("gpus").begin_array().end_array();
      if (compiled)
        w.key("no_gpu").value(why);
      w.end_object();
      std::cout << std::move(w).str() << '\n';
    } else {
      print_front();
      if (compiled)
        std::printf("\nNot diagnosed: %s. The kernel was compiled and its SASS read; nothing "
                    "was measured.\n", why.c_str());
    }
    if (compiled)
      std::cerr << me << "no usable GPU here (" << fleet->why_none
                << "): the kernel was compiled (SASS above); metrics need a GPU\n";
    return finish(compiled ? exit_code::no_gpu : exit_code::failure, {});
  }

  // --- step 3: check, time and profile on every chosen GPU (side by side) ---
  fleet_options fo;
  fo.holder = "warpforge diagnose " + options.problem_path;
  fo.lock_timeout = options.lock_timeout;
  fo.default_watchdog = std::chrono::duration_cast<std::chrono::milliseconds>(
    std::chrono::duration<double>(options.watchdog_s));
  auto workers = spawn_workers(runtime.system(), *fleet, fo);
  std::vector<gpu_diagnosis> gpus;
  {
    caf::scoped_actor self{runtime.system()};
    const messages::branch_ref ref{run_name, spec->name, 1, 0};
    std::vector<std::string> bodies;
    for (std::size_t w = 0; w < targets.size(); ++w) {
      gpu_diagnosis g;
      g.ordinal = targets[w];
      g.device = device_of(g.ordinal);
      g.arch = arch_for(*spec, g.device);
      const auto& b = builds.at(g.arch);
      gpu::race_inputs inputs;
      inputs.reference_cubin = b.reference_cubin;
      inputs.reference_entry = reference->entry;
      inputs.seed = config::defaults::seed;
      inputs.mode = vocabulary::timing_mode::warm;
      bodies.push_back(gpu::encode_body(
        gpu::make_single_kernel_race(*resolved, spec->reference, b.kernel_cubin, kernel.source.entry, inputs)));
      // Beside the CUBIN: `warpforge-runner --execute` replays this launch (under ncu, say).
      std::ofstream{b.kernel_cubin.parent_path() / ("request-" + g.arch + ".json")} << bodies.back() << '\n';
      gpus.push_back(std::move(g));
    }
    // (a) the check and timing, every GPU at once.
    using run_handle = decltype(self->request(std::declval<messages::gpu_worker_actor>(), caf::infinite,
                                              std::declval<messages::run_request>()));
    std::vector<run_handle> runs;
    for (std::size_t w = 0; w < gpus.size(); ++w)
      runs.push_back(self->request(workers[w].handle, caf::infinite,
                                   messages::run_request{ref, kernel.kind, bodies[w], 0}));
    for (std::size_t w = 0; w < gpus.size(); ++w) {
      auto& g = gpus[w];
      runs[w].receive(
        [&](messages::measurement& m) {
          g.outcome = std::string{vocabulary::to_string(m.outcome)};
          g.detail = m.error_text;
          if (m.outcome == vocabulary::branch_outcome::passed)
            g.run = std::move(m);
        },
        [&](caf::error& e) { g.detail = runtime.system().render(e); });
      if (!g.run) {
        emit(feed::event_type::branch_failed, g.ordinal,
             feed::detail{}.add("outcome", g.outcome).add("stage", "check").add("reason", first_line(g.detail, 2000))
               .json());
        if (failure_reason.empty())
          failure_reason = "GPU " + std::to_string(g.ordinal) + ": " + g.outcome + ": " + first_line(g.detail);
        continue;
      }
      const auto& s = g.run->timing;
      auto recorded = runtime.record(messages::measurement_record{
        kernel.branch_id, g.ordinal, g.device->name, vocabulary::timing_mode::warm, s.median_s, s.mean_s,
        s.stddev_s, s.cv, s.ci95_low_s, s.ci95_high_s, s.min_s, s.samples, s.sm_clock_mhz});
      if (!recorded)
        std::cerr << me << "the measurement was not recorded: " << recorded.error() << '\n';
      emit(feed::event_type::branch_measured, g.ordinal,
           feed::detail{}.add("gpu_name", g.device->name).add("time_s", s.median_s).add("cv", s.cv)
             .add("samples", static_cast<std::uint64_t>(s.samples)).add("mode", "warm").json());
    }
    // (b) the counters, in passes apart from the timing, on the GPUs where the kernel passed.
    using profile_handle = decltype(self->request(std::declval<messages::gpu_worker_actor>(), caf::infinite,
                                                  std::declval<messages::profile_request>()));
    std::vector<std::optional<profile_handle>> profiles(gpus.size());
    for (std::size_t w = 0; w < gpus.size(); ++w)
      if (gpus[w].run)
        profiles[w] = self->request(workers[w].handle, caf::infinite, messages::profile_request{ref, bodies[w], {}});
    for (std::size_t w = 0; w < gpus.size(); ++w) {
      if (!profiles[w])
        continue;
      auto& g = gpus[w];
      profiles[w]->receive([&](messages::metric_set& set) { g.metrics = std::move(set); },
                           [&](caf::error& e) {
                             messages::metric_set none;
                             none.note = "the worker did not answer: " + runtime.system().render(e);
                             g.metrics = std::move(none);
                           });
      if (g.metrics->values.empty()) {
        if (failure_reason.empty())
          failure_reason = "GPU " + std::to_string(g.ordinal) + ": no counters: " + first_line(g.metrics->note);
        continue;
      }
      // (c) the diagnosis, against this GPU's own peaks.
      diagnose_on(g);
      emit(feed::event_type::diagnosis_ready, g.ordinal, diagnosis_ready_detail(g));
    }
  }
  stop_workers(runtime.system(), workers);

  // --- the records and the report ---
  bool all_diagnosed = true;
  const gpu_diagnosis* first = nullptr;
  for (const auto& g : gpus) {
    all_diagnosed = all_diagnosed && g.result.has_value();
    if (g.result && first == nullptr)
      first = &g;
  }
  const auto* verdict = &gpus.front(); // the first GPU where the check did not pass, else the first
  for (const auto& g : gpus)
    if (!g.run && verdict->run)
      verdict = &g;
  runtime.record(messages::branch_outcome_change{
    kernel.branch_id,
    vocabulary::from_string<vocabulary::branch_outcome>(verdict->outcome).value_or(vocabulary::branch_outcome::not_run),
    verdict->detail});

  if (options.json) {
    json::writer w;
    w.begin_object();
    write_front(w);
    w.key("gpus").begin_array();
    for (const auto& g : gpus)
      write_gpu(w, g, buffer_bytes);
    w.end_array();
    w.end_object();
    std::cout << std::move(w).str() << '\n';
  } else {
    print_front();
    for (const auto& g : gpus)
      print_gpu(g, buffer_bytes);
  }
  return finish(all_diagnosed ? exit_code::ok : exit_code::failure,
                first != nullptr ? gaps_json(*first) : std::string{});
}

} // namespace warpforge::cli
