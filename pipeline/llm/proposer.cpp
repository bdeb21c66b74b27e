#include "pipeline/llm/proposer.hpp"

#include "config/problem_spec.hpp"
#include "llm/prompt/compaction.hpp"
#include "llm/prompt/memory.hpp"
#include "llm/reply/ablation_check.hpp"
#include "llm/reply/parse.hpp"
#include "foundation/logging/logging.hpp"
#include "pipeline/content_key.hpp"
#include "pipeline/llm/facts.hpp"
#include "pipeline/llm/memory.hpp"
#include "pipeline/llm/round.hpp"
#include "pipeline/llm/transcripts.hpp"
#include "pipeline/records.hpp"
#include "config/toml_reader/placed_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <tuple>
#include <cstdio>
#include <set>
#include <stdexcept>

namespace warpforge::pipeline {

namespace fs = std::filesystem;

struct llm_proposer::job_state {
  std::string problem_path;
  std::unique_ptr<job_setup> setup;
  llm::kernel_contract contract;
  llm::problem_facts problem;
  expression::integer_values dims;
  std::string past_runs;            // frozen at the job's first round: the cached part stays stable
  std::string patterns;             // likewise
  std::set<std::int64_t> learned;   // iterations whose accepted attempts are in the pattern library
  std::string compacted;            // the last compaction of this run's memory
  std::size_t compacted_attempts = 0; // attempts it covered
  // The content keys (content_key.hpp) of the job's earlier proposed branches by (iteration, k-th
  // branch), each computed once: an iteration's proposal never changes once written.
  std::map<std::pair<std::int64_t, std::size_t>, std::string> proposed_keys;
};

/// What the job has measured, by content: each key's first branch (the baseline, and every
/// proposed branch that came to an outcome other than not_run), and each such branch's name.
struct llm_proposer::measured_contents {
  std::map<std::string, branch_place> by_key;
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> names; // (iteration, ordinal)
  const branch_place* find(const std::string& key) const {
    auto it = by_key.find(key);
    return it == by_key.end() ? nullptr : &it->second;
  }
};

namespace {

llm::skill_library built_in_skills() {
  auto skills = llm::skill_library::built_in();
  if (!skills) // compiled-in data that does not load is a broken build
    throw std::logic_error("llm skills: " + skills.error());
  return std::move(*skills);
}

std::vector<std::string> catalog_ids() {
  std::vector<std::string> ids;
  for (const auto& m : method_facts())
    ids.push_back(m.id);
  return ids;
}

std::string first_lines(const std::string& text, std::size_t max_chars) {
  return text.size() <= max_chars ? text : text.substr(0, max_chars) + "\n[... cut at " + std::to_string(max_chars) + " characters]";
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  return fmt::format("{}", fmt::join(parts, separator));
}

// File-name safe: a method id in an ablation's file name.
std::string file_safe(std::string text) {
  std::replace_if(text.begin(), text.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)) && c != '_'; }, '_');
  return text;
}

// A fresh variant named like one already proposed in this job gets the iteration appended: a name
// is a variant's identity in the memory (its repairs keep it; a new idea must not).
llm::proposed_variant unique_name(llm::proposed_variant v, const std::vector<llm::proposed_variant>& so_far,
                                  const fs::path& run_dir, const propose_request& request) {
  auto taken = [&](const std::string& name) {
    return std::any_of(so_far.begin(), so_far.end(), [&](const auto& other) { return other.name == name; }) ||
           times_proposed(run_dir, request.job, name, request.iteration) > 0;
  };
  if (!taken(v.name))
    return v;
  const auto base = v.name + "_i" + std::to_string(request.iteration);
  v.name = base;
  for (int n = 2; taken(v.name); ++n)
    v.name = base + "_" + std::to_string(n);
  return v;
}

// One line for the proposal.json and the events: what came of the round and what it cost.
std::string round_note(const std::vector<candidate>& candidates, const llm::prompt_inputs& inputs,
                       const std::vector<std::string>& notes, const std::vector<model_call>& calls) {
  std::vector<std::string> names;
  for (const auto& c : candidates)
    names.push_back(fs::path{c.source_name}.stem().string());
  std::int64_t tokens = 0;
  double dollars = 0;
  for (const auto& c : calls) {
    tokens += c.input_tokens + c.output_tokens + c.cache_read_tokens + c.cache_write_tokens;
    dollars += c.cost_usd;
  }
  char cost[64];
  std::snprintf(cost, sizeof cost, "%zu call(s), %lld tokens, $%.4f", calls.size(), static_cast<long long>(tokens), dollars);
  std::string note = "llm: " + std::to_string(candidates.size()) + " variant(s)" +
                     (names.empty() ? "" : " (" + join(names, ", ") + ")") + "; " + cost;
  if (inputs.judge)
    note += "; judge: " + inputs.judge->primary.category + ", " + inputs.judge->secondary.category;
  for (const auto& n : notes)
    note += "; " + n;
  return note;
}

// "<attempts covered>\n<the compacted memory>": the last compaction of a job's memory.
std::optional<std::pair<std::size_t, std::string>> read_compaction(const fs::path& file) {
  std::ifstream in{file};
  std::size_t covered = 0;
  if (!(in >> covered))
    return std::nullopt;
  in.ignore(1);
  std::string text{std::istreambuf_iterator<char>{in}, {}};
  if (text.empty())
    return std::nullopt;
  return std::pair{covered, std::move(text)};
}

void write_compaction(const fs::path& file, std::size_t covered, const std::string& text) {
  std::error_code ignored;
  fs::create_directories(file.parent_path(), ignored);
  std::ofstream{file} << covered << '\n' << text;
}

std::string arch_of(const propose_request& request) {
  return request.arch.empty() ? std::string{"sm_90"} : request.arch;
}

} // namespace

llm_proposer::llm_proposer(llm_context context) : context_(std::move(context)), skills_(built_in_skills()) {}

fs::path llm_proposer::patterns_file(const propose_request& request) const {
  if (!context_.patterns_file.empty())
    return context_.patterns_file;
  return fs::path{request.run_dir}.parent_path() / "llm-patterns.json";
}

llm_proposer::~llm_proposer() = default;

expected<llm_proposer::job_state*, std::string> llm_proposer::job_for(const propose_request& request) {
  std::lock_guard lock{mutex_};
  if (!std::exchange(patterns_loaded_, true)) {
    if (auto loaded = llm::pattern_library::load(patterns_file(request)))
      patterns_ = std::move(*loaded);
    else
      logging::get("proposer")->warn("llm pattern library not read: {}", loaded.error());
  }
  auto& slot = jobs_[request.job];
  if (slot && slot->problem_path == request.problem_path)
    return slot.get();
  config::problem_spec problem;
  if (auto parsed = context_.problems.find(request.problem_path); parsed != context_.problems.end()) {
    problem = *parsed->second; // as the command loaded it
  } else {
    auto spec = config::load_problem(request.problem_path);
    if (!spec)
      return unexpected{"cannot load the problem " + request.problem_path + ": " + toml_reader::to_string(spec.error())};
    problem = std::move(*spec);
  }
  auto setup = open_job(request.job, request.problem_path, std::move(problem));
  if (!setup)
    return unexpected{setup.error()};
  auto job = std::make_unique<job_state>();
  job->problem_path = request.problem_path;
  job->setup = std::make_unique<job_setup>(std::move(*setup));
  auto contract = llm::contract_from_source(job->setup->kernel_text, job->setup->problem.kernel.entry, catalog_ids(),
                                            context_.max_variants);
  if (!contract)
    return unexpected{request.problem_path + ": the kernel's contract: " + contract.error()};
  job->contract = std::move(*contract);
  job->problem = problem_facts_of(*job->setup, job->contract);
  for (const auto& d : job->setup->problem.dims)
    job->dims[d.name] = d.value;
  job->past_runs = past_runs_of(patterns_, job->setup->problem.name);
  job->patterns = patterns_.render();
  slot = std::move(job);
  return slot.get();
}

llm::prompt_inputs llm_proposer::inputs_for(job_state& job, const propose_request& request) const {
  llm::prompt_inputs in;
  if (request.diagnosis) {
    auto facts = diagnosis_facts_of(request.run_dir, request.job, *request.diagnosis, work_context_of(*job.setup));
    in.gpu = std::move(facts.gpu);
    in.diagnosis = std::move(facts.diagnosis);
  }
  if (in.gpu.arch.empty())
    in.gpu.arch = arch_of(request);
  in.problem = job.problem;
  in.best_source = request.current_best.source.empty() ? job.setup->kernel_text : request.current_best.source;
  if (request.best_s)
    in.best_us = *request.best_s * 1e6;
  if (auto baseline = baseline_seconds(request.memory))
    in.baseline_us = *baseline * 1e6;
  in.methods = method_facts();
  in.reply_format = std::string{llm::envelope_instructions()};
  in.this_run = attempt_facts_of(request.run_dir, request);
  in.past_runs = job.past_runs;
  in.patterns = job.patterns;
  in.k = request.branches;
  // The champion's methods no leave-one-out has measured yet (it came without ablations).
  for (const auto& method : request.current_best.methods) {
    const bool measured = std::any_of(request.memory.begin(), request.memory.end(), [&](const attempt& a) {
      return a.kind == vocabulary::branch_kind::ablation && !a.methods.empty() && a.methods.front() == method;
    });
    if (!measured)
      in.ablations_wanted.push_back(method);
  }
  return in;
}

std::vector<llm::fix_request> llm_proposer::correctness_fixes(job_state& job, const propose_request& request) const {
  std::vector<llm::fix_request> fixes;
  for (const auto& failed : failed_correctness(request.run_dir, request)) {
    const auto tries = times_proposed(request.run_dir, request.job, failed.variant, request.iteration);
    if (tries > context_.llm.max_fix_tries)
      continue; // its repairs are spent: the memory says it failed, the model moves on
    fixes.push_back({failed.variant, llm::fix_request::kind::correctness, failed.code, first_lines(failed.report, 4000)});
  }
  (void)job;
  return fixes;
}

std::optional<std::string> llm_proposer::compile_error(const job_state& job, const llm::proposed_variant& variant,
                                                      const std::string& arch) const {
  if (!context_.compile)
    return std::nullopt;
  candidate c;
  c.point = job.setup->defaults.point;
  c.compiled_defines = define_set::own_only; // as candidate_of builds it
  c.source = variant.code;
  c.source_name = variant.name + ".cu";
  c.defines = variant.defines;
  auto resolved = resolve_branch(*job.setup, c);
  if (!resolved)
    return std::nullopt; // not the code's fault: the pipeline records it
  auto order = compile_order_for(*job.setup, c, resolved->front(), {}, arch, {});
  auto result = context_.compile(order.request);
  if (result || result.error().kind == gpu::compile_failure_kind::internal)
    return std::nullopt;
  return result.error().log;
}

llm::proposed_variant llm_proposer::compiled(job_state& job, llm_round& round, const llm::prompt_inputs& inputs,
                                             llm::proposed_variant variant, const std::string& arch,
                                             std::vector<std::string>& tries) {
  for (std::uint32_t attempt = 0;; ++attempt) {
    auto log = compile_error(job, variant, arch);
    if (!log)
      return variant;
    tries.push_back(variant.name + "\t" + join(variant.methods, ",") + "\tcompile error (try " +
                    std::to_string(attempt + 1) + "): " + first_lines(*log, 300));
    if (attempt >= context_.llm.max_fix_tries || round.budget_spent())
      return variant; // handed on as it is: the pipeline records its compile_error
    auto fixed = round.fix(inputs, {variant.name, llm::fix_request::kind::compile, variant.code, first_lines(*log, 4000)},
                           skills_);
    if (!fixed)
      return variant;
    variant = std::move(*fixed);
  }
}

candidate llm_proposer::candidate_of(const job_state& job, const llm_round& round, const llm::proposed_variant& v) const {
  // The model's code stands alone: compiled with its own defines only, never the baseline's
  // tunables (a variant that defines BX itself would get two definitions). The point stays at the
  // defaults only to resolve the problem's launch (when the variant gives none) and arguments.
  candidate c;
  c.point = job.setup->defaults.point;
  c.compiled_defines = define_set::own_only;
  c.source = v.code;
  c.source_name = v.name + ".cu";
  c.methods = v.methods;
  c.note = v.memo;
  // A variant claiming several methods without their leave-one-outs is kept; its branch says why
  // its gain will not be attributed (llm/reply/ablation_check.hpp).
  if (auto missing = llm::missing_ablations_note(v); !missing.empty())
    c.note += (c.note.empty() ? "" : "; ") + missing;
  c.defines = v.defines;
  if (auto launch = round.launch_of(v.launch, v.defines); launch)
    c.launch = *launch;
  for (const auto& a : v.ablations) {
    candidate x;
    x.kind = vocabulary::branch_kind::ablation;
    x.point = c.point;
    x.compiled_defines = define_set::own_only;
    x.source = a.code;
    x.source_name = v.name + "-without-" + file_safe(a.without) + ".cu";
    x.methods = {a.without};
    x.note = v.name + " without " + a.without;
    x.defines = a.defines;
    if (auto launch = round.launch_of(a.launch, a.defines); launch)
      x.launch = *launch;
    c.ablations.push_back(std::move(x));
  }
  return c;
}

void llm_proposer::learn_patterns(job_state& job, const propose_request& request) {
  if (!context_.replay_from.empty())
    return; // a replay learns nothing new: the run it replays already taught the library
  std::lock_guard lock{mutex_};
  bool added = false;
  const auto bottleneck = request.diagnosis ? std::string{diagnosis::to_string(request.diagnosis->widest)} : std::string{};
  for (const auto& a : attempt_facts_of(request.run_dir, request)) {
    if (a.verdict != llm::attempt_verdict::accepted || a.iteration < 1 || job.learned.contains(a.iteration))
      continue;
    const bool known = std::any_of(patterns_.entries().begin(), patterns_.entries().end(), [&](const auto& e) {
      return e.kernel == job.setup->problem.name && e.methods == a.methods && e.memo == a.why;
    });
    if (!known) // a resumed job distils its attempts again
      patterns_.add({job.setup->problem.name, bottleneck, a.methods, a.speedup.value_or(1), a.why});
    job.learned.insert(a.iteration);
    added = true;
  }
  if (added && !request.run_dir.empty())
    if (auto saved = patterns_.save(patterns_file(request)); !saved)
      logging::get("proposer")->warn("llm pattern library not saved: {}", saved.error());
}

llm_proposer::measured_contents llm_proposer::measured(job_state& job, const propose_request& request) const {
  measured_contents out;
  const auto arch = arch_of(request);
  std::map<std::int64_t, std::optional<proposal>> proposals; // each iteration's, read once here
  auto proposed = [&](std::int64_t iteration, std::size_t k) -> const candidate* {
    auto [read, fresh] = proposals.try_emplace(iteration);
    if (fresh)
      if (auto p = read_proposal(request.run_dir, request.job, iteration); p && *p)
        read->second = std::move(**p);
    return read->second && k < read->second->candidates.size() ? &read->second->candidates[k] : nullptr;
  };
  std::map<std::int64_t, std::size_t> branches_seen;
  for (const auto& a : request.memory) {
    if (a.iteration < 1 || a.ordinal < 0)
      continue; // known from an earlier run: no content here
    const branch_place place{a.iteration, a.ordinal};
    if (a.kind == vocabulary::branch_kind::baseline) {
      out.names[{a.iteration, a.ordinal}] = "the baseline (the problem's own kernel)";
      if (a.outcome != vocabulary::branch_outcome::not_run)
        out.by_key.try_emplace(content_key_of(*job.setup, job.setup->baseline, arch), place);
      continue;
    }
    if (a.kind != vocabulary::branch_kind::branch)
      continue;
    const auto k = branches_seen[a.iteration]++;
    const auto* c = proposed(a.iteration, k);
    if (c == nullptr)
      continue;
    out.names[{a.iteration, a.ordinal}] = fs::path{c->source_name}.stem().string();
    auto key = job.proposed_keys.find({a.iteration, k});
    if (key == job.proposed_keys.end())
      key = job.proposed_keys.emplace(std::pair{a.iteration, k}, content_key_of(*job.setup, *c, arch)).first;
    // A branch that came to nothing (not_run: a duplicate itself, a GPU that went away) may be
    // proposed again; the first of equal contents is the one named.
    if (a.outcome != vocabulary::branch_outcome::not_run)
      out.by_key.try_emplace(key->second, place);
  }
  return out;
}

std::vector<llm::repeat_fact> llm_proposer::repeats_of(const measured_contents& known,
                                                       const propose_request& request) const {
  std::vector<llm::repeat_fact> out;
  if (request.iteration < 2)
    return out;
  auto last = read_proposal(request.run_dir, request.job, request.iteration - 1);
  if (!last || !*last)
    return out;
  for (const auto& c : (*last)->candidates) {
    if (!c.duplicate_of)
      continue;
    llm::repeat_fact r;
    r.variant = fs::path{c.source_name}.stem().string();
    r.iteration = request.iteration - 1;
    r.earlier_iteration = c.duplicate_of->iteration;
    r.earlier_branch = c.duplicate_of->ordinal;
    auto name = known.names.find({r.earlier_iteration, r.earlier_branch});
    r.earlier_variant = name == known.names.end() ? "a branch" : name->second;
    out.push_back(std::move(r));
  }
  return out;
}

expected<proposal, std::string> llm_proposer::propose(const propose_request& request) {
  if (request.memory_from != 0) { // it keeps no memory of its own (memory_held 0): it needs all of it
    proposal resend;
    resend.resend_memory_from = 0;
    return resend;
  }
  auto job = job_for(request);
  if (!job)
    return unexpected{job.error()};
  std::unique_ptr<llm::chat_client> replay;
  std::error_code same_ec;
  if (!context_.replay_from.empty() && fs::equivalent(context_.replay_from, request.run_dir, same_ec))
    return unexpected{std::string{"replay_from is this run's own directory: its transcripts would be replaced "
                                  "while read; replay into a new run"}};
  if (!context_.replay_from.empty())
    replay = std::make_unique<replayed_chat>(transcript_folder(context_.replay_from, request.job, request.iteration));
  else if (!context_.model)
    return unexpected{std::string{"the llm proposer has no model to talk to"}};
  recorded_chat chat{replay ? *replay : *context_.model, transcript_folder(request.run_dir, request.job, request.iteration)};
  llm_round round{chat, context_.llm, (*job)->contract, (*job)->dims, context_.limits, request.run_dir};
  learn_patterns(**job, request);
  const auto known = measured(**job, request);
  auto inputs = inputs_for(**job, request);
  inputs.repeats = repeats_of(known, request);
  return run_round(**job, round, std::move(inputs), request, known);
}

void llm_proposer::compact_memory(job_state& job, llm_round& round, llm::prompt_inputs& inputs,
                                  const propose_request& request) const {
  const auto rendered = llm::render_attempts(inputs.this_run);
  if (!llm::needs_compaction(rendered, context_.llm.compaction_threshold_chars))
    return;
  // The last compaction is kept beside the transcripts, so a restarted proposer (or a resume)
  // compacts exactly when an undisturbed one would.
  const auto kept = fs::path{request.run_dir} / "llm" / request.job / "compacted.md";
  if (job.compacted.empty())
    if (auto earlier = read_compaction(kept))
      std::tie(job.compacted_attempts, job.compacted) = std::move(*earlier);
  // Compacted again only once a few more attempts have come in: each compaction is a call.
  if (job.compacted.empty() || inputs.this_run.size() >= job.compacted_attempts + 8)
    if (auto compacted = round.compact(rendered)) {
      job.compacted = std::move(*compacted);
      job.compacted_attempts = inputs.this_run.size();
      write_compaction(kept, job.compacted_attempts, job.compacted);
    }
  if (job.compacted.empty())
    return;
  const auto covered = std::min(job.compacted_attempts, inputs.this_run.size());
  inputs.this_run.erase(inputs.this_run.begin(), inputs.this_run.begin() + static_cast<std::ptrdiff_t>(covered));
  inputs.past_runs += "\n\nThis run's earlier attempts, compacted (the raw memory is in memory.md):\n" + job.compacted;
}

proposal llm_proposer::run_round(job_state& job, llm_round& round, llm::prompt_inputs inputs,
                                 const propose_request& request, const measured_contents& known) {
  compact_memory(job, round, inputs, request);
  if (context_.llm.judge)
    inputs.judge = round.judge(inputs);
  std::vector<llm::proposed_variant> variants;
  std::vector<std::string> notes;
  for (auto& fix : correctness_fixes(job, request)) {
    if (round.budget_spent())
      break;
    if (auto fixed = round.fix(inputs, fix, skills_))
      variants.push_back(std::move(*fixed));
    else
      notes.push_back(fix.variant + " not repaired: " + fixed.error());
  }
  if (!round.budget_spent()) {
    if (auto fresh = round.propose(inputs, skills_))
      for (auto& v : *fresh)
        variants.push_back(unique_name(std::move(v), variants, request.run_dir, request));
    else
      notes.push_back(fresh.error());
  }
  if (round.budget_spent())
    notes.push_back("the LLM budget is spent: no further calls (the campaign finishes with what it has)");
  std::vector<std::string> tries;
  proposal out;
  // A variant that is a branch measured before (or one of this round's), by content: recorded as
  // its duplicate, not compiled here (unless only its repair repeats) nor built and raced by the
  // pipeline. The proposal's k-th candidate will be branch first_ordinal + k of this iteration.
  std::map<std::string, branch_place> this_round;
  auto mark_if_repeated = [&](candidate& c) {
    const auto key = content_key_of(*job.setup, c, arch_of(request));
    const auto* earlier = known.find(key);
    if (auto same = this_round.find(key); earlier == nullptr && same != this_round.end())
      earlier = &same->second;
    if (earlier == nullptr)
      return key;
    c.duplicate_of = *earlier;
    notes.push_back(fs::path{c.source_name}.stem().string() + " repeats iteration " +
                    std::to_string(earlier->iteration) + " branch " + std::to_string(earlier->ordinal) +
                    ": not measured again");
    return key;
  };
  for (auto& v : variants) {
    auto c = candidate_of(job, round, v);
    auto key = mark_if_repeated(c);
    if (!c.duplicate_of) {
      auto built = compiled(job, round, inputs, std::move(v), arch_of(request), tries);
      if (auto missing = llm::missing_ablations_note(built); !missing.empty())
        notes.push_back(built.name + ": " + missing);
      c = candidate_of(job, round, built);
      key = mark_if_repeated(c); // its repair may be a repeat too
    }
    if (!c.duplicate_of)
      this_round.emplace(key, branch_place{request.iteration,
                                           request.first_ordinal + static_cast<std::int64_t>(out.candidates.size())});
    out.candidates.push_back(std::move(c));
  }
  write_tries(request.run_dir, request.job, request.iteration, tries);
  out.note = round_note(out.candidates, inputs, notes, round.calls());
  out.calls = round.calls();
  return out;
}

} // namespace warpforge::pipeline
