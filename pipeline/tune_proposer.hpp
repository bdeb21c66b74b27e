#pragma once
// tune_proposer: the built-in search tuner (tuning/) behind the proposer seam. It turns the job's
// search space into candidates: K new points from the strategy (exhaustive, random or annealing),
// each with the methods its tunables claim and, per method, the leave-one-out point.
//
// Incremental: each answer says how many memory entries it holds (memory_held), so the next
// request carries only the entries after them; a delta that does not start where this proposer's
// memory ends (it was restarted) is answered resend_memory_from = 0, and the whole memory comes.
//
// Deterministic and restartable: a strategy's state depends on the sequence of its calls, so the
// proposer keeps one strategy per job and, whenever what it holds is not a prefix of the request
// (a fresh proposer after a restart, a resumed campaign), rebuilds it from the seed by replaying
// the earlier iterations' calls from the memory: the proposal for iteration i saw exactly the
// memory entries of iterations before i (and the earlier runs' entries). The first proposal reads
// no time (it is asked while the baseline races: first_proposal_of): the baseline's point is only
// kept from being proposed, and its outcome is seen from the second proposal on.
// The diagnosis is not used beyond the job's stop rule: the tuner searches the tunables a person
// wrote, whatever the bottleneck.

#include "pipeline/proposer.hpp"
#include "tuning/search_space.hpp"
#include "tuning/strategy.hpp"
#include "tuning/tuning_history.hpp"

#include <map>
#include <memory>
#include <string>

namespace warpforge::pipeline {

class tune_proposer final : public proposer {
public:
  /// `problems`: the campaign's parsed problems; one a request names that is not among them is
  /// loaded from its file.
  tune_proposer(config::search_strategy strategy, std::uint64_t seed, parsed_problems problems = {});
  expected<proposal, std::string> propose(const propose_request& request) override;

private:
  struct job_search {
    std::string problem_path;
    std::shared_ptr<const tuning::search_space> space;
    std::unique_ptr<tuning::strategy> strategy;
    tuning::tuning_history history;
    std::vector<attempt> seen;   // the memory entries put into `history`, in order
    std::int64_t proposed = 0;   // iterations proposed so far
  };

  /// Whether `s` is the state the request continues: the same problem, an iteration not yet
  /// proposed, and a memory that extends what `s` has seen (a delta must start where it ends).
  static bool continues(const job_search& s, const propose_request& request);
  expected<std::shared_ptr<const config::problem_spec>, std::string> problem(const std::string& path) const;
  expected<job_search*, std::string> search_for(const propose_request& request);
  /// Feeds the strategy the memory entries the proposal for `iteration` saw, then asks it.
  std::vector<config::tunable_point> propose_iteration(job_search& s, const propose_request& request,
                                                       std::int64_t iteration);
  candidate make_candidate(const tuning::search_space& space, config::tunable_point point) const;

  config::search_strategy strategy_;
  std::uint64_t seed_;
  parsed_problems problems_;
  std::map<std::string, job_search> jobs_;
};

} // namespace warpforge::pipeline
