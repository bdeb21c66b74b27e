// The campaign engine's planning half: jobs, their plans, builds, proposals and the records they
// leave. The GPU half (races, profiles, usage) is engine_dispatch.cpp; resume is engine_replay.cpp.

#include "pipeline/campaign_engine.hpp"

#include "gpu/device_report.hpp"

#include "diagnosis/gpu_specs.hpp"
#include "pipeline/diagnose_metrics.hpp"
#include "pipeline/code_check.hpp"
#include "pipeline/engine_slots.hpp"
#include "pipeline/fixed_plan.hpp"
#include "pipeline/job_driver.hpp"
#include "foundation/logging/logging.hpp"
#include "tuning/point_text.hpp"
#include "tuning/tuning_history.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace warpforge::pipeline {

namespace {

using vocabulary::branch_outcome;

std::string first_lines(const std::string& text, std::size_t limit) {
  return text.size() <= limit ? text : text.substr(0, limit) + "...";
}

// The kernels a bench or diagnose job measures: the problem's own (unless diagnose was given a
// candidate instead), then each candidate file, at the default point.
std::vector<candidate> given_kernels(const job_setup& job, const campaign_setup& setup) {
  std::vector<candidate> kernels;
  if (setup.mode == campaign_mode::bench || setup.candidates.empty())
    kernels.push_back(job.baseline);
  for (const auto& path : setup.candidates) {
    candidate c = job.baseline;
    c.kind = vocabulary::branch_kind::branch;
    c.methods.clear();
    std::ifstream in{path};
    std::stringstream text;
    text << in.rdbuf();
    c.source = text.str();
    c.source_name = path.filename().string();
    kernels.push_back(std::move(c));
  }
  return kernels;
}

} // namespace

bool outbox::empty() const {
  return compiles.empty() && sass_checks.empty() && proposals.empty() && races.empty() && profiles.empty() &&
         writes.empty() && events.empty();
}

std::string_view to_string(campaign_mode mode) {
  switch (mode) {
  case campaign_mode::optimize: return "optimize";
  case campaign_mode::bench: return "bench";
  case campaign_mode::diagnose: return "diagnose";
  }
  return "unknown";
}

// CUPTI's profiler is opened up front only where profiles come early and hold jobs back (each
// champion's diagnosis; diagnose). Four runners opening it at once take their turns in the driver
// (1.4 s each on 4x H200 against 0.3 s alone), and each GPU's first race waited for that; under
// `final` a GPU's first profile batch opens it instead, while the other GPUs race.
gpu::warm_up_level runner_warm_up(campaign_mode mode, const config::campaign_spec& spec) {
  if (mode == campaign_mode::bench)
    return gpu::warm_up_level::none;
  if (mode == campaign_mode::optimize && config::profiled_champions_of(spec) != config::champion_profiles::each)
    return gpu::warm_up_level::device;
  return gpu::warm_up_level::profiler;
}

campaign_engine::campaign_engine(campaign_setup setup, std::vector<job_setup> jobs, clock now)
    : setup_(std::move(setup)), clock_(std::move(now)) {
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    auto job = std::make_unique<job_slot>();
    job->setup = std::move(jobs[i]);
    job->id = i < setup_.job_ids.size() ? setup_.job_ids[i] : 0;
    jobs_.push_back(std::move(job));
  }
  for (const auto& device : setup_.gpus) {
    gpu_slot g;
    g.device = device;
    g.model = gpu_model(device);
    g.peak_bandwidth = diagnosis::describe_gpu(diagnosis::builtin_gpu_table(), properties_of(device)).peak_dram_bandwidth();
    gpus_.push_back(std::move(g));
  }
  if (setup_.mode == campaign_mode::optimize && !gpus_.empty() && !setup_.tuner_cache.empty())
    if (auto cache = tuning::result_cache::open(setup_.tuner_cache))
      cache_.emplace(std::move(*cache));
}

campaign_engine::~campaign_engine() = default;

std::string campaign_engine::arch() const {
  return gpus_.empty() ? std::string{gpu::fallback_arch} : gpus_.front().device.arch();
}

branch_ref campaign_engine::ref_of(const job_slot& job, std::int64_t iteration, std::int64_t ordinal) const {
  return {setup_.spec.name, job.setup.name, iteration, ordinal};
}

void campaign_engine::start(const std::optional<earlier_run>& earlier) {
  std::vector<int> ordinals;
  for (const auto& g : gpus_)
    ordinals.push_back(g.device.ordinal);
  for (auto& owned : jobs_) {
    auto& job = *owned;
    const auto& spec = setup_.spec;
    if (setup_.mode == campaign_mode::optimize && !gpus_.empty()) {
      auto driver = std::make_unique<job_driver>(job.setup.name, job.setup.problem_path.string(), spec.budget,
                                                 spec.proposer.max_evaluations, job.setup.baseline,
                                                 config::profiled_champions_of(spec),
                                                 first_proposal_of(spec.proposer.kind));
      for (auto& known : known_invalid(job))
        driver->remember(std::move(known));
      job.plan = std::move(driver);
    } else if (setup_.mode == campaign_mode::optimize) {
      propose_request first{job.setup.name, job.setup.problem_path.string(), 1, spec.budget.branches,
                            job.setup.baseline, std::nullopt, std::nullopt, {}};
      job.plan = std::make_unique<fixed_plan>(std::vector<candidate>{job.setup.baseline}, ordinals, false, first);
    } else {
      job.plan = std::make_unique<fixed_plan>(given_kernels(job.setup, setup_), ordinals,
                                              setup_.mode == campaign_mode::diagnose);
    }
    // A job the store knows but has no iteration of has not started: a fresh start, not a resume
    // (the campaign actor records the rows before the scheduler reads them back).
    const report::job_entry* stored = nullptr;
    if (earlier)
      for (const auto& j : earlier->report.jobs)
        if (j.row.id == job.id && (!j.iterations.empty() || j.row.state != vocabulary::job_state::pending))
          stored = &j;
    if (stored && (stored->row.state == vocabulary::job_state::finished ||
                   stored->row.state == vocabulary::job_state::failed)) {
      job.closed = true; // it ended in the earlier run
      if (stored->row.state == vocabulary::job_state::failed)
        job.failed_earlier = stored->row.reason.empty() ? "failed in an earlier run" : stored->row.reason;
      continue;
    }
    out_.writes.push_back(storage::job_state_change{job.id, vocabulary::job_state::running, {}});
    out_.events.push_back(job_event(feed::event_type::job_started, job.setup.name, feed::no_iter, feed::no_branch,
                                    feed::no_gpu,
                                    feed::detail{}.add("problem", job.setup.problem_path.string())
                                      .add("mode", to_string(setup_.mode))
                                      .add("strategy", config::to_string(spec.proposer.strategy))
                                      .add("resumed", stored != nullptr).json()));
    const auto ref = ref_of(job, 0, -1);
    const auto t = next_ticket();
    orders_[t] = order{order::kind::compile, index_of(job), {0, -1}};
    out_.compiles.emplace_back(t, reference_order_for(job.setup, ref, arch(), job_folder(setup_.run_dir, job.setup.name)));
    ++compiles_in_flight_;
    if (stored && setup_.mode == campaign_mode::optimize && !gpus_.empty())
      replay(job, *stored);
  }
  pump();
}

// Points an earlier run found invalid on this kind of GPU are never proposed again. The list is
// kept in the job's folder the first time, so a restarted scheduler (or a resume) remembers the
// same points even though this campaign has added to the cache since.
std::vector<attempt> campaign_engine::known_invalid(job_slot& job) {
  std::vector<attempt> known;
  const auto file = job_folder(setup_.run_dir, job.setup.name) / "known-invalid.txt";
  if (auto id = tuning::problem_identity(job.setup.problem))
    job.problem_id = *id;
  std::vector<std::string> lines;
  if (std::ifstream in{file}; in) {
    for (std::string line; std::getline(in, line);)
      lines.push_back(line);
  } else if (cache_ && !job.problem_id.empty()) {
    if (auto points = cache_->points_for(job.problem_id, tuning::gpu_key(gpus_.front().device.name, arch())))
      for (const auto& p : *points)
        if (tuning::prunes_point(p.result.outcome))
          lines.push_back(std::string{vocabulary::to_string(p.result.outcome)} + " " + p.point);
    std::error_code ignored;
    std::filesystem::create_directories(file.parent_path(), ignored);
    std::ofstream out{file};
    for (const auto& line : lines)
      out << line << '\n';
  }
  if (!lines.empty())
    logging::get("scheduler")->info("{}: {} point(s) known invalid from earlier runs are not proposed", job.setup.name,
                                    lines.size());
  for (const auto& line : lines) {
    const auto space = line.find(' ');
    auto outcome = vocabulary::from_string<branch_outcome>(line.substr(0, space));
    auto point = space == std::string::npos ? std::nullopt : tuning::parse_point_text(line.substr(space + 1));
    if (outcome && point)
      known.push_back({0, vocabulary::branch_kind::branch, *point, {}, *outcome, std::nullopt, "known from an earlier run"});
  }
  return known;
}

void campaign_engine::pump() {
  if (interrupted_)
    return;
  for (auto& job : jobs_)
    if (!job->closed)
      plan_job(*job);
  dispatch();
  for (auto& job : jobs_)
    if (!job->closed)
      plan_job(*job);
}

void campaign_engine::plan_job(job_slot& job) {
  for (auto planned = job.plan->take_planned(); !planned.empty() && !job.closed; planned = job.plan->take_planned())
    for (const auto& b : planned)
      if (!job.closed)
        record_planned(job, b);
  if (job.closed)
    return;
  if (auto ask = job.plan->proposal_due(now())) {
    const auto t = next_ticket();
    orders_[t] = order{order::kind::proposal, index_of(job)};
    ask->run_dir = setup_.run_dir.string();
    ask->arch = arch();
    out_.proposals.push_back({t, std::move(*ask)});
  }
  after_plan(job);
}

std::size_t campaign_engine::index_of(const job_slot& job) const {
  for (std::size_t i = 0; i < jobs_.size(); ++i)
    if (jobs_[i].get() == &job)
      return i;
  return 0;
}

void campaign_engine::record_planned(job_slot& job, const planned_branch& b) {
  if (job.iterations_started.insert(b.iteration).second) {
    out_.writes.push_back(storage::iteration_update{job.id, b.iteration, vocabulary::iteration_state::running, -1, false, {}});
    out_.events.push_back(job_event(feed::event_type::iteration_started, job.setup.name, b.iteration, feed::no_branch,
                                    feed::no_gpu));
  }
  auto& slot = job.branches[{b.iteration, b.ordinal}];
  slot.plan = b;
  auto source = keep_source(setup_.run_dir, job.setup, b);
  out_.writes.push_back(branch_row(job.id, b, source ? *source : std::string{}));
  if (!source) // the job's own files cannot be written: that job cannot go on, the others can
    return abandon_job(job, "cannot record its branches: " + source.error());
  out_.events.push_back(job_event(feed::event_type::branch_proposed, job.setup.name, b.iteration, b.ordinal, feed::no_gpu,
                                  feed::detail{}.add("kind", vocabulary::to_string(b.what.kind))
                                    .add("point", tuning::canonical_text(b.what.point))
                                    .add_raw("methods", methods_json(b.what.methods))
                                    .add("note", b.what.note).json()));
  if (b.ended) {
    end_branch(job, b, *b.ended, feed::no_gpu);
    return;
  }
  build(job, slot);
}

void campaign_engine::build(job_slot& job, branch_slot& slot) {
  const auto& b = slot.plan;
  auto fail = [&](branch_outcome outcome, std::string why) {
    branch_result r;
    r.outcome = outcome;
    r.detail = std::move(why);
    end_branch(job, b, r, feed::no_gpu);
    job.plan->failed(b.iteration, b.ordinal, r);
  };
  auto resolved = resolve_branch(job.setup, b.what);
  if (!resolved)
    return fail(branch_outcome::not_run, resolved.error());
  const auto& configs = job.setup.configs;
  if (b.what.launch && configs.size() > 1)
    return fail(branch_outcome::not_supported,
                "it brings its own launch geometry, fixed for one size, and the problem is raced at " +
                  std::to_string(configs.size()) + " configurations, each with the geometry of its dims");
  for (std::size_t c = 0; c < configs.size(); ++c)
    if ((*resolved)[c].args != configs[c].defaults.args)
      return fail(branch_outcome::not_supported,
                  "its buffers or scalars differ from the problem's default point" +
                    (configs.size() > 1 ? " at config '" + configs[c].config.name + "'" : std::string{}) +
                    ", and a race shares one set of arguments among its kernels");
  slot.resolved = std::move(*resolved);
  const auto t = next_ticket();
  orders_[t] = order{order::kind::compile, index_of(job), {b.iteration, b.ordinal}};
  orders_[t].sent_s = now();
  out_.compiles.emplace_back(t, compile_order_for(job.setup, b.what, slot.resolved.front(), ref_of(job, b.iteration, b.ordinal),
                                                  arch(), branch_folder(setup_.run_dir, job.setup.name, b.iteration, b.ordinal)));
  ++compiles_in_flight_;
  compile_ahead(job, b);
}

// A branch's leave-one-out variants are built if it becomes champion, right after its race: they
// are compiled now into the content cache, behind the branches themselves, so that build is a
// cache hit and no GPU waits for it.
void campaign_engine::compile_ahead(job_slot& job, const planned_branch& b) {
  for (const auto& variant : b.what.ablations) {
    auto resolved = resolve_branch(job.setup, variant);
    if (!resolved)
      continue;
    auto ahead = compile_order_for(job.setup, variant, resolved->front(), ref_of(job, b.iteration, b.ordinal), arch(),
                                   branch_folder(setup_.run_dir, job.setup.name, b.iteration, b.ordinal));
    ahead.keep_files = false;
    const auto t = next_ticket();
    orders_[t] = order{order::kind::compile_ahead, index_of(job), {b.iteration, b.ordinal}};
    out_.compiles.emplace_back(t, std::move(ahead));
  }
}

// A branch's outcome, recorded (the plan hears of it from the caller).
void campaign_engine::end_branch(job_slot& job, const planned_branch& b, const branch_result& result, int gpu) {
  auto& slot = job.branches[{b.iteration, b.ordinal}];
  slot.ended = true;
  out_.writes.push_back(storage::branch_outcome_change{{job.id, b.iteration, b.ordinal}, result.outcome,
                                                       first_lines(result.detail, 2000)});
  if (result.outcome != branch_outcome::passed && gpu == feed::no_gpu)
    out_.events.push_back(job_event(feed::event_type::branch_failed, job.setup.name, b.iteration, b.ordinal, gpu,
                                    feed::detail{}.add("outcome", vocabulary::to_string(result.outcome))
                                      .add("detail", first_lines(result.detail, 2000)).json()));
}

void campaign_engine::built(ticket id, const built_kernel& kernel) {
  update_usage();
  auto it = orders_.find(id);
  if (it == orders_.end())
    return;
  auto o = it->second;
  orders_.erase(it);
  if (o.what == order::kind::compile_ahead)
    return; // in the cache now; its branch, if one is planned, will find it there
  --compiles_in_flight_;
  ++compiled_;
  auto& job = *jobs_.at(o.job);
  if (job.closed) // abandoned while it compiled
    return pump();
  if (o.branch.second == -1) { // the job's reference kernel
    if (kernel.outcome == branch_outcome::passed)
      job.reference_cubin = kernel.cubin_path;
    else
      job.reference_failure = "the reference kernel does not compile for " + kernel.arch + ": " + first_lines(kernel.log, 2000);
    return pump();
  }
  auto& slot = job.branches.at(o.branch);
  const auto& b = slot.plan;
  if (kernel.outcome != branch_outcome::passed) {
    branch_result r;
    r.outcome = kernel.outcome;
    r.detail = kernel.log;
    end_branch(job, b, r, feed::no_gpu);
    if (!gpus_.empty())
      remember(job, b, r, gpus_.front().device); // compiled for the first GPU's architecture
    job.plan->failed(b.iteration, b.ordinal, r);
    return pump();
  }
  slot.cubin_path = kernel.cubin_path;
  slot.code_note = kernel.note;
  feed::detail compiled;
  compiled.add("arch", kernel.arch).add("cache_hit", kernel.cache_hit).add("compile_s", kernel.compile_s)
    .add("build_s", kernel.build_s).add("ordered_s", now() - o.sent_s);
  compiled.add("sass_check", sass_check_state()); // "checked", or why not (no disassembler here)
  if (!kernel.note.empty()) // the code check's note: lower precision the problem allows
    compiled.add("note", kernel.note);
  out_.events.push_back(job_event(feed::event_type::branch_compiled, job.setup.name, b.iteration, b.ordinal, feed::no_gpu,
                                  compiled.json()));
  // The claims are checked in the SASS; diagnose looks for every method the SASS can show.
  auto methods = setup_.mode == campaign_mode::diagnose ? sass_checkable_methods() : b.what.methods;
  if (!methods.empty() && b.what.kind != vocabulary::branch_kind::ablation) {
    const auto t = next_ticket();
    orders_[t] = order{order::kind::sass, o.job, o.branch};
    const auto folder = branch_folder(setup_.run_dir, job.setup.name, b.iteration, b.ordinal);
    out_.sass_checks.emplace_back(t, sass_order_for(kernel, methods, folder / ("kernel-" + kernel.arch + ".sass")));
    return pump();
  }
  job.plan->built(b.iteration, b.ordinal);
  pump();
}

void campaign_engine::checked(ticket id, const sass_verdict& verdict) {
  update_usage();
  auto it = orders_.find(id);
  if (it == orders_.end())
    return;
  auto o = it->second;
  orders_.erase(it);
  auto& job = *jobs_.at(o.job);
  if (job.closed)
    return pump();
  auto& slot = job.branches.at(o.branch);
  // Only claimed methods can be absent for the plan (diagnose looks at methods nobody claimed).
  for (const auto& m : verdict.absent)
    if (std::find(slot.plan.what.methods.begin(), slot.plan.what.methods.end(), m) != slot.plan.what.methods.end())
      slot.sass_absent.push_back(m);
  feed::detail detail;
  for (const auto& m : verdict.methods) {
    detail.add(m.method, sass::to_string(m.presence));
    if (!m.evidence.empty())
      detail.add(m.method + "#evidence", m.evidence).add(m.method + "#matches", m.matches);
  }
  out_.events.push_back(job_event(feed::event_type::branch_checked, job.setup.name, slot.plan.iteration,
                                  slot.plan.ordinal, feed::no_gpu, detail.json()));
  job.plan->built(slot.plan.iteration, slot.plan.ordinal);
  pump();
}

void campaign_engine::proposed(ticket id, const expected<proposal, std::string>& answer) {
  update_usage();
  auto it = orders_.find(id);
  if (it == orders_.end())
    return;
  auto& job = *jobs_.at(it->second.job);
  orders_.erase(it);
  if (job.closed)
    return pump();
  if (!answer) {
    job.plan->proposal_failed(answer.error());
    return pump();
  }
  if (answer->resend_memory_from) { // not a proposal: the plan asks again with more memory
    job.plan->accept(*answer);
    return pump();
  }
  const auto iteration = job.plan->iterations_done() + 1;
  if (auto kept = write_proposal(setup_.run_dir, job.setup.name, static_cast<std::int64_t>(iteration), *answer); !kept)
    out_.events.push_back(job_event(feed::event_type::warning, job.setup.name, iteration, feed::no_branch, feed::no_gpu,
                                    feed::detail{}.add("message", kept.error()).add("component", "scheduler").json()));
  // What each model call cost: a row keyed by (job, iteration, place), so writing it again
  // replaces it, and its llm_call event (docs/events.md).
  std::int64_t seq = 0;
  for (const auto& call : answer->calls) {
    const storage::llm_call_record row{job.id, static_cast<std::int64_t>(iteration), ++seq, call.purpose,
                                       call.model, std::string{outcome_word(call)}, call.input_tokens, call.output_tokens,
                                       call.cache_read_tokens, call.cache_write_tokens, call.cost_usd, call.seconds,
                                       call.attempts, call.transcript};
    out_.writes.push_back(row);
    out_.events.push_back(job_event(feed::event_type::llm_call, job.setup.name, row.iteration, feed::no_branch,
                                    feed::no_gpu,
                                    feed::detail{}.add("call", row.seq).add("purpose", row.purpose)
                                      .add("model", row.model).add("outcome", row.outcome)
                                      .add("input_tokens", row.input_tokens).add("output_tokens", row.output_tokens)
                                      .add("cache_read_tokens", row.cache_read_tokens)
                                      .add("cache_write_tokens", row.cache_write_tokens)
                                      .add("cost_usd", row.cost_usd).add("seconds", row.seconds)
                                      .add("attempts", row.attempts).add("transcript", row.transcript).json()));
  }
  job.plan->accept(*answer);
  pump();
}

void campaign_engine::after_plan(job_slot& job) {
  for (const auto& summary : job.plan->take_finished()) {
    job.iterations_ended.insert(summary.iteration);
    std::optional<double> peak = gpus_.empty() ? std::nullopt : gpus_.front().peak_bandwidth;
    out_.writes.push_back(storage::iteration_update{job.id, summary.iteration, vocabulary::iteration_state::finished,
                                                    summary.champion.value_or(-1), true,
                                                    roofline_position(buffer_bytes(job.setup), summary.best_s, peak)});
    append_memory(setup_.run_dir, job.setup.name, summary);
    if (summary.champion)
      out_.events.push_back(job_event(feed::event_type::champion_elected, job.setup.name, summary.iteration,
                                      *summary.champion, feed::no_gpu,
                                      feed::detail{}.add("time_s", summary.best_s.value_or(0))
                                        .add("point", tuning::canonical_text(job.plan->best().what.point)).json()));
    out_.events.push_back(job_event(feed::event_type::iteration_finished, job.setup.name, summary.iteration,
                                    feed::no_branch, feed::no_gpu,
                                    feed::detail{}.add("champion", summary.champion.has_value())
                                      .add("best_s", summary.best_s.value_or(0)).json()));
    forget_iteration(job, summary.iteration);
  }
  if (job.plan->baseline_s())
    out_.writes.push_back(storage::job_update{job.id, job.plan->iterations_done(), job.plan->best_s().value_or(0),
                                              job.plan->baseline_s().value_or(0)});
  if (job.plan->done() && !job.closed && !job.pending_profile)
    close_job(job);
}

// A finished iteration's branches are recorded: their slots (resolved problems, candidates) go,
// but the job's best, the next races' incumbent and profile. Without this the engine's memory grows
// with every iteration of a long campaign.
void campaign_engine::forget_iteration(job_slot& job, std::int64_t iteration) {
  const branch_key best{job.plan->best().iteration, job.plan->best().ordinal};
  for (auto it = job.branches.begin(); it != job.branches.end() && it->first.first <= iteration;)
    it = it->second.ended && it->first != best ? job.branches.erase(it) : std::next(it);
}

// Iterations the job started and never finished end with it: failed, or interrupted by a stop.
void campaign_engine::end_open_iterations(job_slot& job, vocabulary::iteration_state state) {
  for (auto n : job.iterations_started)
    if (job.iterations_ended.insert(n).second)
      out_.writes.push_back(storage::iteration_update{job.id, n, state, -1, true, {}});
}

void campaign_engine::abandon_job(job_slot& job, const std::string& why) {
  if (job.closed)
    return;
  logging::get("scheduler")->error("{}: {}", job.setup.name, why);
  job.plan->abandon(why);
  end_unraced(job, why);
  job.pending_profile.reset();
  close_job(job);
}

// Branches a job leaves without an outcome are recorded not_run, with why: no row of a closed job
// looks in flight.
void campaign_engine::end_unraced(job_slot& job, const std::string& why) {
  for (auto& [key, slot] : job.branches)
    if (!slot.ended) {
      slot.ended = true;
      out_.writes.push_back(storage::branch_outcome_change{{job.id, key.first, key.second}, branch_outcome::not_run,
                                                           first_lines(why, 2000)});
    }
}

void campaign_engine::close_job(job_slot& job) {
  job.closed = true;
  if (!job.plan->failure().empty()) {
    // The first proposal's branches, built while a baseline that then failed raced, end with it.
    end_unraced(job, "its job failed: " + job.plan->failure());
    end_open_iterations(job, vocabulary::iteration_state::failed);
    out_.writes.push_back(storage::job_state_change{job.id, vocabulary::job_state::failed, job.plan->failure()});
    out_.events.push_back(job_event(feed::event_type::job_failed, job.setup.name, feed::no_iter, feed::no_branch,
                                    feed::no_gpu, feed::detail{}.add("reason", job.plan->failure()).json()));
    return;
  }
  const std::string why{job.plan->stop() ? tuning::to_string(*job.plan->stop()) : "done"};
  out_.writes.push_back(storage::job_state_change{job.id, vocabulary::job_state::finished, "stopped: " + why});
  out_.events.push_back(job_event(feed::event_type::job_finished, job.setup.name, feed::no_iter, feed::no_branch,
                                  feed::no_gpu,
                                  feed::detail{}.add("stop", why).add("best_s", job.plan->best_s().value_or(0))
                                    .add("baseline_s", job.plan->baseline_s().value_or(0)).json()));
}

void campaign_engine::tick() {
  update_usage();
  pump();
}

void campaign_engine::interrupt(const std::string& reason) {
  update_usage();
  if (interrupted_)
    return;
  interrupted_ = true;
  interrupt_reason_ = reason;
  for (auto& job : jobs_) {
    for (auto& [key, slot] : job->branches)
      if (!slot.ended) {
        slot.ended = true;
        out_.writes.push_back(storage::branch_outcome_change{{job->id, key.first, key.second},
                                                             branch_outcome::interrupted, reason});
      }
    if (!job->closed) {
      job->closed = true;
      end_open_iterations(*job, vocabulary::iteration_state::interrupted);
      out_.writes.push_back(storage::job_state_change{job->id, vocabulary::job_state::interrupted, reason});
    }
  }
  orders_.clear();
}

outbox campaign_engine::take_outbox() {
  return std::exchange(out_, {});
}

bool campaign_engine::finished() const {
  if (interrupted_)
    return true;
  for (const auto& job : jobs_)
    if (!job->closed)
      return false;
  return orders_.empty();
}

std::size_t campaign_engine::open_jobs() const {
  std::size_t open = 0;
  for (const auto& job : jobs_)
    open += !job->closed;
  return open;
}

campaign_result campaign_engine::result() const {
  campaign_result r;
  r.name = setup_.spec.name;
  r.wall_s = now();
  double kernel_s = 0;
  double occupied_s = 0;
  for (const auto& g : gpus_) {
    auto usage = g.usage;
    usage.ordinal = g.device.ordinal;
    if (g.busy) // still on a request (an interrupted campaign): count it up to now
      usage.occupied_s += r.wall_s - g.since;
    kernel_s += usage.kernel_s;
    occupied_s += usage.occupied_s;
    r.gpu_wait_for_compile_s += usage.waited_for_compile_s;
    r.gpus.push_back(usage);
  }
  const double gpu_time = r.wall_s * static_cast<double>(gpus_.size());
  r.gpu_busy_fraction = gpu_time > 0 ? kernel_s / gpu_time : 0;
  r.worker_occupancy = gpu_time > 0 ? occupied_s / gpu_time : 0;
  r.measured = measured_;
  r.compiled = compiled_;
  if (interrupted_) {
    r.kind = campaign_result_kind::interrupted;
    r.reason = interrupt_reason_;
    return r;
  }
  std::string failed;
  // A job that failed, now or in the run this one resumes, fails the campaign: a resume never
  // turns a failed campaign into a finished one by having nothing left to do.
  for (const auto& job : jobs_) {
    const auto why = job->plan && !job->plan->failure().empty() ? job->plan->failure() : job->failed_earlier;
    if (!why.empty() && failed.empty())
      failed = job->setup.name + ": " + why;
  }
  if (setup_.mode == campaign_mode::optimize && gpus_.empty()) {
    r.kind = campaign_result_kind::failed;
    r.reason = "no GPU here: every job's baseline and first proposal were compiled (" + code_check_scope() +
               "); measurements need a GPU (" + gpu::short_no_gpu_reason(setup_.why_no_gpu) + ")";
  } else if (!failed.empty()) {
    r.kind = campaign_result_kind::failed;
    r.reason = failed;
  }
  return r;
}

} // namespace warpforge::pipeline
