#include "actors/scheduler.hpp"

#include "actors/emit.hpp"
#include "actors/registry.hpp"
#include "config/defaults.hpp"
#include "config/resolved_problem.hpp"
#include "diagnosis/diagnose.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "gpu/runner/race_request.hpp"
#include "json/writer.hpp"
#include "logging/logging.hpp"
#include "messages/store.hpp"
#include "sass/disassembler.hpp"
#include "sass/method_check.hpp"
#include "sass/signature_table.hpp"
#include "storage/run_directory.hpp"
#include "tuning/point_text.hpp"
#include "tuning/result_cache.hpp"
#include "tuning/strategy_factory.hpp"

#include <simdjson.h>

#include <caf/exit_reason.hpp>
#include <caf/send.hpp>

#include <deque>
#include <fstream>
#include <map>
#include <sstream>

namespace warpforge::actors {

namespace {

namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

/// How long the loop waits for a reply before looking at the wall-time budget again.
constexpr std::chrono::milliseconds idle_tick{500};

std::string read_text(const fs::path& file) {
  std::ifstream in{file};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream{file} << text;
}

std::string point_json(const config::tunable_point& point) {
  json::writer out;
  out.begin_object();
  for (const auto& [name, value] : point)
    out.key(name).value(value);
  out.end_object();
  return std::move(out).str();
}

std::string methods_json(const std::vector<std::string>& methods) {
  json::writer out;
  out.begin_array();
  for (const auto& m : methods)
    out.value(m);
  out.end_array();
  return std::move(out).str();
}

config::tunable_point parse_point_json(const std::string& text) {
  config::tunable_point point;
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  if (parser.parse(text).get(object) != simdjson::SUCCESS)
    return point;
  for (auto field : object) {
    std::int64_t value = 0;
    if (field.value.get(value) == simdjson::SUCCESS)
      point[std::string{field.key}] = value;
  }
  return point;
}

// A tunable's method as the signature table names it: as written, else with an axis prefix
// ("tiling_smem" is memory.tiling_smem).
std::string catalog_id(const std::string& method) {
  const auto& table = sass::signature_table::builtin();
  if (table.find(method))
    return method;
  for (const char* axis : {"memory.", "compute.", "latency."})
    if (table.find(axis + method))
      return axis + method;
  return method;
}

// A -D define of config's "-DNAME=value" form.
gpu::macro_define to_define(const std::string& flag) {
  const auto body = flag.rfind("-D", 0) == 0 ? flag.substr(2) : flag;
  const auto eq = body.find('=');
  return eq == std::string::npos ? gpu::macro_define{body, ""}
                                 : gpu::macro_define{body.substr(0, eq), body.substr(eq + 1)};
}

struct job_slot {
  const config::job_spec* spec = nullptr;
  std::int64_t job_id = 0;
  std::unique_ptr<job_driver> driver;
  std::shared_ptr<const tuning::search_space> space;
  std::string kernel_text;
  std::string reference_text;
  std::string reference_entry;
  std::optional<config::resolved_problem> default_resolved;
  std::map<std::int64_t, std::int64_t> iteration_ids;                  // number → row
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> branch_ids; // (iteration, ordinal) → row
  std::map<std::string, fs::path> reference_cubins;                    // arch → file
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> requests; // (iteration, ordinal) → runner body
  std::map<std::int64_t, messages::iteration_update> iteration_updates; // last sent, by number
  std::string best_request; // the runner body of the best branch so far (what gets profiled)
  std::string problem_id;   // the tuner cache's problem identity (empty: not cached)
  // Ordinals of rows for methods SASS showed absent (never measured), apart from the driver's.
  std::int64_t next_unmeasured_ordinal = 1000;
  bool closed = false; // its end is recorded
};

// A branch built and waiting for (or on) a GPU.
struct task {
  std::size_t job = 0;
  planned_branch branch;
  std::int64_t branch_id = 0;
  std::string request_json;
  std::vector<std::string> sass_absent;
  int gpu = -1; // the worker's ordinal once dispatched
  std::optional<std::int64_t> profile_of; // a profile of the job's best, for this iteration's diagnosis
};

class campaign_scheduler {
public:
  campaign_scheduler(caf::blocking_actor* self, scheduler_config config)
      : self_(self), config_(std::move(config)), log_(logging::get("scheduler")),
        compiler_(gpu::compile_cache{gpu::default_cache_root()}) {}

  messages::campaign_result run();

private:
  // --- store and feed --------------------------------------------------------------------------
  template <class Record>
  std::int64_t ask_store(const Record& record) {
    std::int64_t id = 0;
    auto store = lookup<messages::store_actor>(self_->system(), store_name);
    if (!store)
      throw std::runtime_error("scheduler: the store is not running");
    self_->request(store, caf::infinite, record)
      .receive([&](std::int64_t row) { id = row; },
               [&](caf::error& e) { throw std::runtime_error("store: " + self_->system().render(e)); });
    return id;
  }
  template <class Change>
  void tell_store(const Change& change) {
    if (auto store = lookup<messages::store_actor>(self_->system(), store_name))
      self_->send(store, change);
  }
  void flush_store() {
    if (auto store = lookup<messages::store_actor>(self_->system(), store_name))
      self_->request(store, caf::infinite, messages::flush_atom::value)
        .receive([](std::int64_t) {}, [](caf::error&) {});
  }
  void event(feed::event_type type, const job_slot* job, std::int64_t iteration, std::int64_t branch,
             int gpu, std::string detail_json) {
    feed::event e;
    e.type = type;
    if (job)
      e.job = job->spec->name;
    e.iter = iteration;
    e.branch = branch;
    e.gpu = gpu;
    e.detail_json = std::move(detail_json);
    emit(self_->system(), std::move(e));
  }

  // --- building ---------------------------------------------------------------------------------
  void open_jobs();
  void seed_from_cache(job_slot& job);
  void resume_jobs();
  std::int64_t iteration_id(job_slot& job, std::int64_t number);
  fs::path branch_dir(const job_slot& job, const planned_branch& b) const;
  std::string arch_for_build() const;
  std::optional<fs::path> reference_cubin(job_slot& job, const std::string& arch, std::string& why);
  // Records the branch and builds it; a branch that cannot run is finished here.
  void prepare(std::size_t job_index, const planned_branch& b);
  void finish(std::size_t job_index, const planned_branch& b, std::int64_t branch_id,
              const branch_result& result, int gpu);
  void after_record(job_slot& job);
  void compile_only_first_iteration(std::size_t job_index);
  std::string roofline_position(const job_slot& job, std::optional<double> best_s) const;

  // --- the loop ---------------------------------------------------------------------------------
  void plan();
  void dispatch();
  void on_measurement(messages::measurement& m);
  void on_metrics(messages::metric_set& metrics);
  void queue_profile(std::size_t job_index, const iteration_summary& summary);
  void interrupt_everything(const std::string& reason);
  bool all_done() const;
  double elapsed_s() const { return std::chrono::duration<double>(steady::now() - started_).count(); }

  caf::blocking_actor* self_;
  scheduler_config config_;
  std::shared_ptr<spdlog::logger> log_;
  gpu::cached_compiler compiler_;
  std::vector<job_slot> jobs_;
  std::deque<task> ready_;
  std::map<int, std::optional<task>> in_flight_; // per worker ordinal
  steady::time_point started_ = steady::now();
  gpu_usage usage_;
  std::uint64_t compiled_ = 0;
  bool stopping_ = false;
  std::optional<tuning::result_cache> cache_; // points measured or found invalid, across runs

  std::string gpu_key_of(int ordinal) const;
  void remember(const job_slot& job, const planned_branch& b, const branch_result& r, int gpu);
};

std::string campaign_scheduler::arch_for_build() const {
  return config_.workers.empty() ? config_.fallback_arch : config_.workers.front().arch;
}

fs::path campaign_scheduler::branch_dir(const job_slot& job, const planned_branch& b) const {
  return config_.run_dir / storage::run_directory::jobs_folder / storage::path_component(job.spec->name) /
         ("iter-" + std::to_string(b.iteration)) / ("branch-" + std::to_string(b.ordinal));
}

std::string campaign_scheduler::gpu_key_of(int ordinal) const {
  for (const auto& w : config_.workers)
    if (w.ordinal == ordinal || ordinal < 0) // a compile result belongs to the first GPU's arch
      return tuning::gpu_key(w.name, w.arch);
  return {};
}

// Into the cross-run cache: what a point did on a GPU, when a later run would see it again.
void campaign_scheduler::remember(const job_slot& job, const planned_branch& b, const branch_result& r, int gpu) {
  if (!cache_ || job.problem_id.empty() || config_.workers.empty() || !tuning::is_cacheable(r.outcome))
    return;
  const tuning::cache_key key{job.problem_id, gpu_key_of(gpu), tuning::canonical_text(b.point)};
  if (auto put = cache_->put(key, {r.outcome, r.median_s, std::nullopt}); !put)
    log_->warn("tuner cache: {}", storage::to_string(put.error()));
}

// Points an earlier run found invalid on this kind of GPU are never proposed again.
void campaign_scheduler::seed_from_cache(job_slot& job) {
  if (!cache_ || config_.workers.empty())
    return;
  auto id = tuning::problem_identity(job.spec->problem);
  if (!id)
    return;
  job.problem_id = *id;
  auto points = cache_->points_for(job.problem_id, gpu_key_of(-1));
  if (!points)
    return;
  std::size_t pruned = 0;
  for (const auto& p : *points)
    if (tuning::prunes_point(p.result.outcome))
      if (auto point = tuning::parse_point_text(p.point)) {
        job.driver->remember_invalid(*point, p.result.outcome);
        ++pruned;
      }
  if (pruned > 0)
    log_->info("{}: {} point(s) known invalid from earlier runs are not proposed", job.spec->name, pruned);
}

void campaign_scheduler::open_jobs() {
  for (std::size_t i = 0; i < config_.spec.jobs.size(); ++i) {
    const auto& spec = config_.spec.jobs[i];
    job_slot job;
    job.spec = &spec;
    job.job_id = config_.job_ids.at(i);
    job.kernel_text = read_text(spec.problem.kernel.source);
    const auto& reference = spec.problem.reference.kind == config::reference_kind::kernel
                              ? spec.problem.reference.kernel : spec.problem.kernel;
    job.reference_text = read_text(reference.source);
    job.reference_entry = reference.entry;
    auto resolved = config::resolve_problem(spec.problem, config::default_point(spec.problem));
    if (resolved)
      job.default_resolved = std::move(*resolved);
    auto space = tuning::search_space::from_problem(spec.problem);
    if (!space || !job.default_resolved || job.kernel_text.empty() || job.reference_text.empty() ||
        spec.problem.reference.kind == config::reference_kind::file) {
      const std::string why = !space ? tuning::to_string(space.error())
                            : !job.default_resolved ? config::to_string(resolved.error())
                            : spec.problem.reference.kind == config::reference_kind::file
                              ? "a reference from an expected-values file is not supported by the runner yet"
                              : "cannot read the kernel or reference source";
      tell_store(messages::job_state_change{job.job_id, vocabulary::job_state::failed, why});
      event(feed::event_type::job_failed, &job, feed::no_iter, feed::no_branch, feed::no_gpu,
            feed::detail{}.add("reason", why).json());
      job.closed = true;
      jobs_.push_back(std::move(job));
      continue;
    }
    job.space = std::make_shared<const tuning::search_space>(std::move(*space));
    job.driver = std::make_unique<job_driver>(
      spec.name, job.space,
      tuning::make_strategy(config_.spec.proposer.strategy, job.space, config_.spec.proposer.seed),
      config_.spec.budget, config_.spec.proposer.max_evaluations);
    seed_from_cache(job);
    tell_store(messages::job_state_change{job.job_id, vocabulary::job_state::running, {}});
    event(feed::event_type::job_started, &job, feed::no_iter, feed::no_branch, feed::no_gpu,
          feed::detail{}.add("problem", spec.problem_path.string())
            .add("strategy", config::to_string(config_.spec.proposer.strategy))
            .add("space", static_cast<std::uint64_t>(job.space->size())).json());
    jobs_.push_back(std::move(job));
  }
}

// Rebuilds each job's driver from what the store holds: finished work is replayed, never redone;
// a branch that never finished is recorded interrupted (its point is proposed again first).
void campaign_scheduler::resume_jobs() {
  for (auto& job : jobs_) {
    if (!job.driver)
      continue;
    const report::job_entry* stored = nullptr;
    for (const auto& j : config_.resume_from->jobs)
      if (j.row.id == job.job_id)
        stored = &j;
    if (!stored)
      continue;
    if (stored->row.state == vocabulary::job_state::finished || stored->row.state == vocabulary::job_state::failed) {
      job.closed = true; // ended in the earlier run
      continue;
    }
    for (const auto& iteration : stored->iterations) {
      job.iteration_ids[iteration.row.number] = iteration.row.id;
      std::vector<std::pair<planned_branch, branch_result>> rows;
      for (const auto& b : iteration.branches) {
        planned_branch planned;
        planned.iteration = iteration.row.number;
        planned.ordinal = b.row.ordinal;
        planned.kind = b.row.kind;
        planned.point = parse_point_json(b.row.defines_json);
        planned.methods = b.methods;
        job.branch_ids[{planned.iteration, planned.ordinal}] = b.row.id;
        branch_result result;
        result.outcome = b.row.outcome.value_or(vocabulary::branch_outcome::interrupted);
        result.median_s = b.best_time_s;
        result.detail = b.row.detail;
        if (!b.row.outcome)
          tell_store(messages::branch_outcome_change{b.row.id, vocabulary::branch_outcome::interrupted,
                                                     "interrupted: the run ended before its result"});
        if (result.outcome == vocabulary::branch_outcome::passed && !result.median_s)
          result.outcome = vocabulary::branch_outcome::interrupted; // passed, but its measurement was lost
        rows.emplace_back(std::move(planned), std::move(result));
      }
      job.driver->replay(rows);
      after_record(job);
    }
    log_->info("{}: resumed at iteration {} (best {})", job.spec->name, job.driver->iteration(),
               job.driver->best_s() ? std::to_string(*job.driver->best_s()) : "-");
  }
}

std::int64_t campaign_scheduler::iteration_id(job_slot& job, std::int64_t number) {
  if (auto it = job.iteration_ids.find(number); it != job.iteration_ids.end())
    return it->second;
  const auto id = ask_store(messages::iteration_record{job.job_id, number});
  job.iteration_ids[number] = id;
  event(feed::event_type::iteration_started, &job, number, feed::no_branch, feed::no_gpu, "{}");
  return id;
}

std::optional<fs::path> campaign_scheduler::reference_cubin(job_slot& job, const std::string& arch,
                                                            std::string& why) {
  if (auto it = job.reference_cubins.find(arch); it != job.reference_cubins.end())
    return it->second;
  gpu::compile_request r;
  r.source = job.reference_text;
  r.source_name = "reference.cu";
  r.entry = job.reference_entry;
  r.arch = arch;
  for (const auto& d : job.default_resolved->defines)
    r.defines.push_back(to_define(d));
  auto built = compiler_.compile(r);
  if (!built) {
    why = "the reference does not compile: " + built.error().log;
    return std::nullopt;
  }
  const auto file = config_.run_dir / storage::run_directory::jobs_folder / storage::path_component(job.spec->name) /
                    ("reference-" + arch + ".cubin");
  fs::create_directories(file.parent_path());
  std::ofstream{file, std::ios::binary}.write(reinterpret_cast<const char*>(built->cubin.data()),
                                              static_cast<std::streamsize>(built->cubin.size()));
  job.reference_cubins[arch] = file;
  return file;
}

void campaign_scheduler::prepare(std::size_t job_index, const planned_branch& b) {
  auto& job = jobs_[job_index];
  const auto iteration = iteration_id(job, b.iteration);
  const auto dir = branch_dir(job, b);
  fs::create_directories(dir);
  std::optional<std::int64_t> parent;
  if (b.parent)
    if (auto it = job.branch_ids.find({b.iteration, *b.parent}); it != job.branch_ids.end())
      parent = it->second;
  const auto source_copy = dir / job.spec->problem.kernel.source.filename();
  write_text(source_copy, job.kernel_text);
  const auto branch_id = ask_store(messages::branch_record{
    iteration, b.ordinal, b.kind, parent.value_or(0), methods_json(b.methods), point_json(b.point),
    fs::relative(source_copy, config_.run_dir).string()});
  job.branch_ids[{b.iteration, b.ordinal}] = branch_id;
  event(feed::event_type::branch_proposed, &job, b.iteration, b.ordinal, feed::no_gpu,
        feed::detail{}.add("kind", vocabulary::to_string(b.kind)).add("point", tuning::canonical_text(b.point))
          .add_raw("methods", methods_json(b.methods)).add("note", b.note).json());

  auto fail = [&](vocabulary::branch_outcome outcome, const std::string& why) {
    branch_result r;
    r.outcome = outcome;
    r.detail = why;
    finish(job_index, b, branch_id, r, -1);
  };
  auto resolved = config::resolve_problem(job.spec->problem, b.point);
  if (!resolved)
    return fail(vocabulary::branch_outcome::not_run, config::to_string(resolved.error()));
  const std::string arch = job.spec->problem.kernel.arch.value_or(arch_for_build());
  gpu::compile_request request;
  request.source = job.kernel_text;
  request.source_name = job.spec->problem.kernel.source.filename().string();
  request.entry = job.spec->problem.kernel.entry;
  request.arch = arch;
  for (const auto& d : resolved->defines)
    request.defines.push_back(to_define(d));
  request.extra_flags = job.spec->problem.kernel.flags;
  auto built = compiler_.compile(request);
  ++compiled_;
  if (!built) {
    write_text(dir / "compile.log", built.error().log);
    return fail(vocabulary::branch_outcome::compile_error, built.error().log);
  }
  const auto cubin = dir / ("kernel-" + arch + ".cubin");
  std::ofstream{cubin, std::ios::binary}.write(reinterpret_cast<const char*>(built->cubin.data()),
                                               static_cast<std::streamsize>(built->cubin.size()));
  event(feed::event_type::branch_compiled, &job, b.iteration, b.ordinal, feed::no_gpu,
        feed::detail{}.add("arch", arch).add("cache_hit", built->cache_hit).add("compile_s", built->compile_s).json());

  // SASS: are the claimed methods in the machine code? Unavailable (no disassembler) is never
  // "absent": only a real listing can fail a claim.
  task t;
  t.job = job_index;
  t.branch = b;
  t.branch_id = branch_id;
  if (!b.methods.empty() && b.kind != vocabulary::branch_kind::ablation) {
    auto listing = sass::disassemble(cubin);
    if (listing) {
      std::string text;
      for (const auto& kernel : listing->kernels) {
        text += "// " + kernel.name + "\n";
        for (const auto& instruction : kernel.instructions)
          text += "  " + instruction.text + ";\n";
      }
      write_text(dir / ("kernel-" + arch + ".sass"), text);
    }
    std::vector<std::string> ids;
    for (const auto& m : b.methods)
      ids.push_back(catalog_id(m));
    auto checks = sass::check_methods(listing, sass::signature_table::builtin(), ids);
    feed::detail detail;
    for (std::size_t i = 0; i < checks.size(); ++i) {
      detail.add(b.methods[i], sass::to_string(checks[i].presence));
      if (checks[i].presence == sass::method_presence::absent)
        t.sass_absent.push_back(b.methods[i]);
    }
    event(feed::event_type::branch_checked, &job, b.iteration, b.ordinal, feed::no_gpu, detail.json());
  }

  std::string why;
  auto reference = reference_cubin(job, arch, why);
  if (!reference)
    return fail(vocabulary::branch_outcome::not_run, why);
  gpu::race_inputs inputs;
  inputs.reference_cubin = *reference;
  inputs.reference_entry = job.reference_entry;
  if (job.spec->problem.reference.kind == config::reference_kind::self)
    inputs.reference_launch = job.default_resolved->launch;
  inputs.seed = config_.spec.proposer.seed;
  t.request_json = gpu::encode_body(gpu::make_single_kernel_race(
    *resolved, job.spec->problem.reference, cubin, job.spec->problem.kernel.entry, inputs));
  write_text(dir / ("request-" + arch + ".json"), t.request_json);
  job.requests[{b.iteration, b.ordinal}] = t.request_json;
  if (config_.workers.empty())
    return fail(vocabulary::branch_outcome::not_run,
                "compiled for " + arch + " and checked; measurements need a GPU (" + config_.why_no_gpu + ")");
  ready_.push_back(std::move(t));
}

void campaign_scheduler::finish(std::size_t job_index, const planned_branch& b, std::int64_t branch_id,
                                const branch_result& result, int gpu) {
  auto& job = jobs_[job_index];
  tell_store(messages::branch_outcome_change{branch_id, result.outcome, result.detail});
  remember(job, b, result, gpu);
  if (result.outcome != vocabulary::branch_outcome::passed)
    event(feed::event_type::branch_failed, &job, b.iteration, b.ordinal, gpu,
          feed::detail{}.add("outcome", vocabulary::to_string(result.outcome))
            .add("detail", result.detail.substr(0, 2000)).json());
  if (job.driver && !job.driver->done())
    job.driver->record(b, result);
  after_record(job);
}

// Records the iterations the driver finished and, once it is done, the job's end.
void campaign_scheduler::after_record(job_slot& job) {
  if (!job.driver)
    return;
  for (const auto& summary : job.driver->take_finished()) {
    const auto iteration = iteration_id(job, summary.iteration);
    std::int64_t champion_id = 0;
    if (summary.champion)
      champion_id = job.branch_ids[{summary.iteration, *summary.champion}];
    // Methods SASS showed absent get an ablation row of their own (never measured).
    for (const auto& m : summary.methods)
      if (m.verdict == tuning::method_class::implementation_failed) {
        const auto id = ask_store(messages::branch_record{iteration, job.next_unmeasured_ordinal++,
                                                          vocabulary::branch_kind::ablation, champion_id,
                                                          methods_json({m.method}), "{}", ""});
        tell_store(messages::branch_outcome_change{id, vocabulary::branch_outcome::not_run,
                                                   "implementation_failed: " + m.note});
      }
    messages::iteration_update update;
    update.iteration_id = iteration;
    update.state = vocabulary::iteration_state::finished;
    update.champion_branch_id = champion_id;
    update.finished = true;
    update.gaps_json = roofline_position(job, summary.best_s);
    tell_store(update);
    job.iteration_updates[summary.iteration] = update;
    queue_profile(static_cast<std::size_t>(&job - jobs_.data()), summary);
    std::string memory;
    for (const auto& line : summary.memory)
      memory += "- " + line + "\n";
    for (const auto& m : summary.methods)
      memory += "- method " + m.method + ": " + std::string{tuning::to_string(m.verdict)} + " (" + m.note + ")\n";
    std::ofstream{config_.run_dir / storage::run_directory::jobs_folder / storage::path_component(job.spec->name) /
                    "memory.md", std::ios::app}
      << "## iteration " << summary.iteration << "\n" << memory << "\n";
    if (summary.champion)
      event(feed::event_type::champion_elected, &job, summary.iteration, *summary.champion, feed::no_gpu,
            feed::detail{}.add("time_s", summary.best_s.value_or(0))
              .add("point", tuning::canonical_text(job.driver->best_point())).json());
    event(feed::event_type::iteration_finished, &job, summary.iteration, feed::no_branch, feed::no_gpu,
          feed::detail{}.add("champion", summary.champion.has_value()).add("best_s", summary.best_s.value_or(0)).json());
    tell_store(messages::job_update{job.job_id, job.driver->iteration() - 1, job.driver->best_s().value_or(0),
                                    job.driver->baseline_s().value_or(0)});
  }
  if (job.driver->baseline_s())
    tell_store(messages::job_update{job.job_id, job.driver->iteration() - 1, job.driver->best_s().value_or(0),
                                    job.driver->baseline_s().value_or(0)});
  if (!job.driver->done() || job.closed)
    return;
  job.closed = true;
  if (!job.driver->failure().empty()) {
    tell_store(messages::job_state_change{job.job_id, vocabulary::job_state::failed, job.driver->failure()});
    event(feed::event_type::job_failed, &job, feed::no_iter, feed::no_branch, feed::no_gpu,
          feed::detail{}.add("reason", job.driver->failure()).json());
    return;
  }
  const std::string why{job.driver->stop() ? tuning::to_string(*job.driver->stop()) : "done"};
  tell_store(messages::job_state_change{job.job_id, vocabulary::job_state::finished, "stopped: " + why});
  event(feed::event_type::job_finished, &job, feed::no_iter, feed::no_branch, feed::no_gpu,
        feed::detail{}.add("stop", why).add("best_s", job.driver->best_s().value_or(0))
          .add("baseline_s", job.driver->baseline_s().value_or(0)).json());
}

// Where the best time puts the job on the DRAM roofline: every buffer moved once over the time,
// against the GPU's peak DRAM bandwidth (docs/tuning.md). Empty when either is unknown.
std::string campaign_scheduler::roofline_position(const job_slot& job, std::optional<double> best_s) const {
  if (!best_s || *best_s <= 0 || config_.workers.empty() || !config_.workers.front().peak_dram_bandwidth)
    return {};
  double bytes = 0;
  for (const auto& arg : job.default_resolved->args)
    if (const auto* b = std::get_if<config::resolved_buffer>(&arg))
      bytes += static_cast<double>(b->bytes);
  const double achieved = bytes / *best_s;
  const double peak = *config_.workers.front().peak_dram_bandwidth;
  json::writer out;
  out.begin_object();
  out.key("achieved_bandwidth").value(achieved);
  out.key("peak_bandwidth").value(peak);
  out.key("dram_fraction").value(achieved / peak);
  out.key("bytes").value(bytes);
  out.end_object();
  return std::move(out).str();
}

// "Profile the current best, diagnose": after each iteration the job's best is profiled on a
// free GPU (counters, in passes apart from timing) and diagnosed; the gaps go into the
// iteration's row (the bottleneck drift of summary.md) and near-peak stops the job.
void campaign_scheduler::queue_profile(std::size_t job_index, const iteration_summary& summary) {
  auto& job = jobs_[job_index];
  if (config_.workers.empty() || !job.driver)
    return;
  // The best's request: this iteration's champion, else the best known before (the baseline).
  if (summary.champion)
    job.best_request = job.requests[{summary.iteration, *summary.champion}];
  if (job.best_request.empty())
    return;
  task t;
  t.job = job_index;
  t.branch.iteration = summary.iteration;
  t.branch.ordinal = summary.champion.value_or(-1);
  t.request_json = job.best_request;
  t.profile_of = summary.iteration;
  ready_.push_front(std::move(t)); // before more candidates: the diagnosis may stop the job
}

void campaign_scheduler::on_metrics(messages::metric_set& metrics) {
  auto slot = in_flight_.find(metrics.device.ordinal);
  if (slot == in_flight_.end() || !slot->second || !slot->second->profile_of)
    return log_->warn("metrics from GPU {} that nobody waits for", metrics.device.ordinal);
  task t = std::move(*slot->second);
  slot->second.reset();
  auto& job = jobs_[t.job];
  if (metrics.values.empty()) {
    log_->warn("{}: iteration {}: no counters ({}); not diagnosed", job.spec->name, *t.profile_of, metrics.note);
    return;
  }
  diagnosis::metric_values measured;
  for (const auto& v : metrics.values)
    measured[v.key] = v.value;
  diagnosis::device_properties device;
  device.name = metrics.device.name;
  device.sm_count = static_cast<int>(metrics.device.sm_count);
  device.l2_bytes = metrics.device.l2_bytes;
  const auto d = diagnosis::diagnose(measured, diagnosis::describe_gpu(diagnosis::builtin_gpu_table(), device));
  if (d.near_peak && job.driver)
    job.driver->set_near_peak(true);
  json::writer out;
  out.begin_object();
  out.key("compute").value(d.gaps.compute);
  out.key("memory").value(d.gaps.memory);
  out.key("latency").value(d.gaps.latency);
  out.key("near_peak").value(d.near_peak);
  auto optional = [&](const char* key, std::optional<double> v) {
    if (v)
      out.key(key).value(*v);
  };
  optional("arithmetic_intensity", d.roofline.arithmetic_intensity);
  optional("achieved_flops", d.roofline.achieved_flops);
  optional("achieved_bandwidth", d.roofline.achieved_bandwidth);
  optional("peak_flops", d.roofline.peak_flops);
  optional("peak_bandwidth", d.roofline.peak_bandwidth);
  out.key("findings").begin_array();
  for (const auto& f : d.findings)
    out.value(f.rule_id);
  out.end_array();
  out.end_object();
  auto update = job.iteration_updates[*t.profile_of];
  update.gaps_json = std::move(out).str();
  tell_store(update);
  job.iteration_updates[*t.profile_of] = update;
  event(feed::event_type::diagnosis_ready, &job, *t.profile_of, t.branch.ordinal, t.gpu, update.gaps_json);
}

// Without a GPU: the first proposal of each job is built and checked too, so a spec's whole
// first iteration is known to compile before it reaches a GPU node.
void campaign_scheduler::compile_only_first_iteration(std::size_t job_index) {
  auto& job = jobs_[job_index];
  auto strategy = tuning::make_strategy(config_.spec.proposer.strategy, job.space, config_.spec.proposer.seed);
  tuning::tuning_history none;
  std::int64_t ordinal = 1;
  for (auto& point : strategy->propose(config_.spec.budget.branches + 1, none)) {
    if (point == job.space->default_point() || ordinal > config_.spec.budget.branches)
      continue; // the baseline is built already
    planned_branch b;
    b.iteration = 1;
    b.ordinal = ordinal++;
    b.methods = job.space->claimed_methods(point);
    b.point = std::move(point);
    prepare(job_index, b);
  }
}

void campaign_scheduler::plan() {
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    auto& job = jobs_[i];
    if (!job.driver || job.closed || stopping_)
      continue;
    // A compile error finishes a branch at once, and may free the driver to plan again.
    for (auto planned = job.driver->next(elapsed_s()); !planned.empty(); planned = job.driver->next(elapsed_s())) {
      const bool no_gpu = config_.workers.empty();
      for (const auto& b : planned)
        prepare(i, b);
      if (no_gpu && planned.front().kind == vocabulary::branch_kind::baseline)
        compile_only_first_iteration(i);
      if (job.closed)
        break;
    }
    after_record(job); // a driver that decided to stop while planning ends here
  }
}

void campaign_scheduler::dispatch() {
  for (auto& w : config_.workers) {
    auto& slot = in_flight_[w.ordinal];
    if (slot || ready_.empty() || stopping_)
      continue;
    task t = std::move(ready_.front());
    ready_.pop_front();
    t.gpu = w.ordinal;
    const auto& job = jobs_[t.job];
    const messages::branch_ref ref{config_.spec.name, job.spec->name, t.branch.iteration, t.branch.ordinal};
    if (t.profile_of)
      self_->send(w.handle, messages::profile_request{ref, t.request_json, {}}); // → metric_set
    else
      self_->send(w.handle, messages::run_request{ref, t.branch.kind, t.request_json, 0}); // → measurement
    event(feed::event_type::gpu_leased, &job, t.branch.iteration, t.branch.ordinal, w.ordinal, "{}");
    slot = std::move(t);
  }
}

void campaign_scheduler::on_measurement(messages::measurement& m) {
  auto slot = in_flight_.find(m.device.ordinal);
  if (slot == in_flight_.end() || !slot->second)
    return log_->warn("a measurement from GPU {} that nobody waits for", m.device.ordinal);
  task t = std::move(*slot->second);
  slot->second.reset();
  usage_.busy_s += m.wall_s;
  ++usage_.measured;
  auto& job = jobs_[t.job];
  event(feed::event_type::gpu_released, &job, t.branch.iteration, t.branch.ordinal, t.gpu,
        feed::detail{}.add("request_s", m.wall_s).json());
  branch_result result;
  result.outcome = m.outcome;
  result.detail = m.error_text;
  result.sass_absent = t.sass_absent;
  if (m.outcome == vocabulary::branch_outcome::passed && t.branch.kind == vocabulary::branch_kind::baseline)
    job.best_request = t.request_json;
  if (m.outcome == vocabulary::branch_outcome::passed) {
    const auto& s = m.timing;
    result.median_s = s.median_s;
    result.ci_low_s = s.ci95_low_s;
    result.ci_high_s = s.ci95_high_s;
    ask_store(messages::measurement_record{t.branch_id, m.device.ordinal, m.device.name, m.mode, s.median_s,
                                           s.mean_s, s.stddev_s, s.cv, s.ci95_low_s, s.ci95_high_s, s.min_s,
                                           s.samples, s.sm_clock_mhz});
    event(t.branch.kind == vocabulary::branch_kind::ablation ? feed::event_type::ablation_measured
                                                          : feed::event_type::branch_measured,
          &job, t.branch.iteration, t.branch.ordinal, t.gpu,
          feed::detail{}.add("gpu_name", m.device.name).add("time_s", s.median_s).add("cv", s.cv)
            .add("samples", static_cast<std::uint64_t>(s.samples)).add("ci95_low_s", s.ci95_low_s)
            .add("ci95_high_s", s.ci95_high_s).add("point", tuning::canonical_text(t.branch.point)).json());
  }
  finish(t.job, t.branch, t.branch_id, result, t.gpu);
}

void campaign_scheduler::interrupt_everything(const std::string& reason) {
  stopping_ = true;
  auto mark = [&](const task& t) {
    if (t.profile_of)
      return;
    tell_store(messages::branch_outcome_change{t.branch_id, vocabulary::branch_outcome::interrupted, reason});
  };
  for (auto& [gpu, slot] : in_flight_)
    if (slot)
      mark(*slot);
  for (const auto& t : ready_)
    mark(t);
  ready_.clear();
  for (auto& job : jobs_)
    if (!job.closed) {
      job.closed = true;
      tell_store(messages::job_state_change{job.job_id, vocabulary::job_state::interrupted, reason});
    }
}

bool campaign_scheduler::all_done() const {
  for (const auto& job : jobs_)
    if (!job.closed)
      return false;
  for (const auto& [gpu, slot] : in_flight_)
    if (slot)
      return false;
  return ready_.empty();
}

messages::campaign_result campaign_scheduler::run() {
  messages::campaign_result result;
  result.name = config_.spec.name;
  usage_.gpus = config_.workers.size();
  if (!config_.workers.empty()) {
    auto cache = tuning::result_cache::open(config_.tuner_cache.value_or(tuning::default_cache_path()));
    if (cache)
      cache_.emplace(std::move(*cache));
    else
      log_->warn("tuner cache unavailable, going on without: {}", storage::to_string(cache.error()));
  }
  open_jobs();
  if (config_.resume_from)
    resume_jobs();
  bool stop_requested = false;
  while (!stop_requested) {
    plan();
    dispatch();
    if (all_done())
      break;
    if (config_.workers.empty())
      break; // nothing can come back: every branch was built and recorded not_run
    self_->receive(
      [&](messages::measurement& m) { on_measurement(m); },
      [&](messages::metric_set& metrics) { on_metrics(metrics); },
      [&](messages::stop_atom) { stop_requested = true; },
      caf::after(idle_tick) >> [] {});
  }
  usage_.wall_s = elapsed_s();
  result.wall_s = usage_.wall_s;
  result.gpu_busy_fraction = usage_.busy_fraction();
  result.measured = usage_.measured;
  result.compiled = compiled_;
  if (stop_requested) {
    interrupt_everything("interrupted: stopped by a signal; resume with `warpforge resume`");
    result.kind = messages::campaign_result_kind::interrupted;
    result.reason = "interrupted by a signal";
  } else if (config_.workers.empty()) {
    for (auto& job : jobs_)
      if (!job.closed) {
        job.closed = true;
        tell_store(messages::job_state_change{job.job_id, vocabulary::job_state::failed,
                                              "measurements need a GPU (" + config_.why_no_gpu + ")"});
      }
    result.kind = messages::campaign_result_kind::failed;
    result.reason = "no GPU here: every job's baseline and first proposal were compiled and checked; "
                    "measurements need a GPU (" + config_.why_no_gpu + ")";
  } else {
    bool any_failed = false;
    for (const auto& job : jobs_)
      any_failed = any_failed || !job.driver || !job.driver->failure().empty();
    result.kind = any_failed ? messages::campaign_result_kind::failed : messages::campaign_result_kind::finished;
    if (any_failed)
      result.reason = "a job failed (see its reason)";
  }
  flush_store();
  return result;
}

} // namespace

void scheduler(caf::blocking_actor* self, scheduler_config config) {
  auto owner = config.owner;
  messages::campaign_result result;
  try {
    campaign_scheduler s{self, std::move(config)};
    result = s.run();
  } catch (const std::exception& e) {
    result.kind = messages::campaign_result_kind::failed;
    result.reason = std::string{"the scheduler failed: "} + e.what();
    logging::get("scheduler")->error("{}", result.reason);
  }
  if (owner)
    self->send(owner, std::move(result));
}

} // namespace warpforge::actors
