#include "pipeline/tune_proposer.hpp"

#include "config/toml_reader/placed_error.hpp"
#include "config/problem_spec.hpp"
#include "tuning/strategy_factory.hpp"

namespace warpforge::pipeline {

namespace {

// Whether the proposal for `iteration` had seen `a` (entries are recorded a phase at a time, so
// the ones it saw form a prefix of the memory). The first proposal sees the earlier runs' entries
// only: it is made while the baseline races, so the baseline is seen from the second on.
bool seen_before(const attempt& a, std::int64_t iteration) {
  return a.iteration < iteration;
}

// The job's baseline point: its memory entry, or, before it has one, the first request's best.
std::optional<config::tunable_point> baseline_point(const propose_request& request) {
  for (const auto& a : request.memory)
    if (a.kind == vocabulary::branch_kind::baseline)
      return a.point;
  if (request.iteration == 1)
    return request.current_best.point;
  return std::nullopt;
}

} // namespace

tune_proposer::tune_proposer(config::search_strategy strategy, std::uint64_t seed, parsed_problems problems)
    : strategy_(strategy), seed_(seed), problems_(std::move(problems)) {}

bool tune_proposer::continues(const job_search& s, const propose_request& request) {
  if (!s.strategy || s.problem_path != request.problem_path || s.proposed >= request.iteration)
    return false;
  if (request.memory_from != 0) // a delta: it must start exactly where this proposer's memory ends
    return static_cast<std::size_t>(request.memory_from) == s.seen.size();
  if (s.seen.size() > request.memory.size())
    return false;
  for (std::size_t i = 0; i < s.seen.size(); ++i)
    if (!(s.seen[i] == request.memory[i]))
      return false;
  return true;
}

expected<std::shared_ptr<const config::problem_spec>, std::string> tune_proposer::problem(const std::string& path) const {
  if (auto found = problems_.find(path); found != problems_.end())
    return found->second;
  auto spec = config::load_problem(path); // a proposer made without the campaign's problems
  if (!spec)
    return unexpected{"cannot load the problem " + path + ": " + toml_reader::to_string(spec.error())};
  return std::make_shared<const config::problem_spec>(std::move(*spec));
}

expected<tune_proposer::job_search*, std::string> tune_proposer::search_for(const propose_request& request) {
  auto& s = jobs_[request.job];
  // What this proposer holds must be the start of what the request says happened; otherwise
  // (restarted, resumed, another campaign) the strategy is rebuilt from its seed.
  if (continues(s, request))
    return &s;
  auto spec = problem(request.problem_path);
  if (!spec)
    return unexpected{spec.error()};
  auto space = tuning::search_space::from_problem(**spec);
  if (!space)
    return unexpected{request.problem_path + ": " + tuning::to_string(space.error())};
  s = job_search{};
  s.problem_path = request.problem_path;
  s.space = std::make_shared<const tuning::search_space>(std::move(*space));
  s.strategy = tuning::make_strategy(strategy_, s.space, seed_);
  // The baseline is being measured, or was: never proposed as a branch of its own job.
  if (auto baseline = baseline_point(request))
    s.strategy->reserve(*baseline);
  return &s;
}

std::vector<config::tunable_point> tune_proposer::propose_iteration(job_search& s, const propose_request& request,
                                                                  std::int64_t iteration) {
  // The request's memory starts at entry `from` of the job's (from == seen.size(), or 0).
  const auto from = static_cast<std::size_t>(request.memory_from);
  while (s.seen.size() < from + request.memory.size() && seen_before(request.memory[s.seen.size() - from], iteration)) {
    const auto& a = request.memory[s.seen.size() - from];
    s.history.record({a.point, a.outcome, a.median_s});
    s.seen.push_back(a);
  }
  s.proposed = iteration;
  return s.strategy->propose(request.branches, s.history);
}

candidate tune_proposer::make_candidate(const tuning::search_space& space, config::tunable_point point) const {
  candidate c;
  c.kind = vocabulary::branch_kind::branch;
  c.methods = space.claimed_methods(point);
  for (const auto& method : c.methods) {
    auto variant = space.leave_one_out(point, method);
    if (!variant)
      continue; // no valid point without it: the method cannot be judged alone
    candidate ablation;
    ablation.kind = vocabulary::branch_kind::ablation;
    ablation.point = variant->point;
    ablation.methods = {method};
    for (const auto& t : variant->adjusted)
      ablation.note += (ablation.note.empty() ? "also changed: " : ", ") + t;
    c.ablations.push_back(std::move(ablation));
  }
  c.point = std::move(point);
  return c;
}

expected<proposal, std::string> tune_proposer::propose(const propose_request& request) {
  if (request.memory_from < 0)
    return unexpected{"memory_from " + std::to_string(request.memory_from) + " is negative"};
  if (request.memory_from != 0 && !continues(jobs_[request.job], request)) {
    proposal resend; // restarted (or out of step): it needs the whole memory to rebuild its strategy
    resend.resend_memory_from = 0;
    resend.note = "the memory sent starts at entry " + std::to_string(request.memory_from) +
                  ", not where this proposer's ends: asked for all of it";
    return resend;
  }
  auto s = search_for(request);
  if (!s)
    return unexpected{s.error()};
  auto& search = **s;
  // Replay the iterations this strategy has not proposed (none when it is up to date).
  for (std::int64_t iteration = search.proposed + 1; iteration < request.iteration; ++iteration)
    (void)propose_iteration(search, request, iteration);
  proposal out;
  for (auto& point : propose_iteration(search, request, request.iteration))
    out.candidates.push_back(make_candidate(*search.space, std::move(point)));
  out.note = std::string{config::to_string(strategy_)} + ": " + std::to_string(out.candidates.size()) + " of " +
             std::to_string(request.branches) + " new points" +
             (out.candidates.size() < request.branches ? " (no more valid points the strategy could find)" : "");
  out.memory_held = static_cast<std::int64_t>(search.seen.size());
  return out;
}

} // namespace warpforge::pipeline
