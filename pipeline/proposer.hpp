#pragma once
// The proposer seam: one interface for every way of finding the next kernels to try. In: the job,
// the diagnosis of its best kernel, its attempt memory and the current best; out: K candidates
// with the methods each claims and their leave-one-out variants. The built-in tuner
// (tune_proposer.hpp) is the first implementation; a language model (llm_proposer.hpp) is the
// second, and a replay of an earlier run's model replies is that one reading its transcripts. The proposer actor is a thin shell over one of these.
//
//   auto p = make_proposer(campaign.proposer);            // tune_proposer for kind = "tune"
//   auto q = make_proposer(campaign.proposer, &context);  // llm_proposer for "llm" and "replay"
//   auto next = p->propose(request);                      // expected<proposal, std::string>
//
// A proposer must be a pure function of the request and its configuration (seed included): the
// actor around it may be restarted between two calls, and a campaign resumed from its store, and
// both must get the proposals an undisturbed run would have got.

#include "config/campaign_spec.hpp"
#include "foundation/expected/expected.hpp"
#include "llm/chat/chat.hpp"
#include "pipeline/candidate.hpp"
#include "pipeline/diagnosis_summary.hpp"
#include "tuning/champion.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::pipeline {

/// One earlier evaluation of the job, as the proposer sees it (in the order they were recorded:
/// a phase's branches together, by ordinal, when the phase completes).
struct attempt {
  std::int64_t iteration = 0;       // 0: known from an earlier run (the result cache)
  vocabulary::branch_kind kind = vocabulary::branch_kind::branch;
  config::tunable_point point;
  std::vector<std::string> methods;
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run;
  std::optional<double> median_s;   // seconds, when it passed (in the job's time frame)
  std::string detail;               // why it failed, or its verdict, one line
  std::int64_t ordinal = -1;        // its branch in the iteration; -1: known from an earlier run
  std::optional<tuning::branch_verdict> verdict = std::nullopt; // a branch's election (accepted, rejected,
                                    // failed); none: a baseline, an ablation, or known from an
                                    // earlier run
  friend bool operator==(const attempt&, const attempt&) = default;
};

struct propose_request {
  std::string job;                        // the job's name (a proposer may keep per-job state)
  std::string problem_path;               // the job's problem spec
  std::int64_t iteration = 1;             // the iteration to fill
  std::uint32_t branches = 4;             // K
  candidate current_best;                 // the kernel to improve on
  std::optional<double> best_s;           // its time, seconds
  std::optional<diagnosis_summary> diagnosis; // of the current best; none: not profiled
  std::vector<attempt> memory;            // the job's evaluations from entry memory_from on
  std::int64_t memory_from = 0;           // index in the job's memory of memory[0]: 0 sends the
                                          // whole memory; a proposer that said it holds the first
                                          // N entries (proposal::memory_held) is sent the rest only,
                                          // so a request stays small however long the job runs
  std::string run_dir;                    // where the campaign records (the llm proposer's
                                          // transcripts and the proposals it reads back)
  std::string arch;                       // what the campaign compiles for ("sm_90")
  std::int64_t first_ordinal = 0;         // the ordinal the proposal's first candidate will get
                                          // (the others follow in order): where a proposer's
                                          // own candidates will stand, for duplicate_of
  friend bool operator==(const propose_request&, const propose_request&) = default;
};

/// One request a proposer made to a language model (the llm proposer; none for the tuner): what
/// the store, the events and the summary account for.
struct model_call {
  std::string purpose;            // judge, compact, propose, reask, fix_compile, fix_correctness
  std::string model;              // as the provider named it
  std::optional<llm::chat_error_kind> error; // none: the model replied (outcome_word: its text)
  std::int64_t input_tokens = 0;  // tokens, cache reads and writes excluded
  std::int64_t output_tokens = 0;
  std::int64_t cache_read_tokens = 0;
  std::int64_t cache_write_tokens = 0;
  double cost_usd = 0;            // dollars, from the price table (0: a local or unpriced model)
  double seconds = 0;             // wall time, retries and continuations included
  std::uint32_t attempts = 0;     // HTTP requests it took (retries)
  std::string transcript;         // its file, relative to the run directory
  friend bool operator==(const model_call&, const model_call&) = default;
};

/// A call's outcome in the store's llm_calls rows and the llm_call events (docs/events.md): "ok",
/// or its error's kind (rate_limited, budget_exhausted, ...).
inline std::string_view outcome_word(const model_call& call) {
  return call.error ? llm::to_string(*call.error) : std::string_view{"ok"};
}

struct proposal {
  std::vector<candidate> candidates; // at most K; fewer (or none) when nothing new is left
  std::string note;                  // what the proposer did, or why fewer than K
  std::vector<model_call> calls;     // the language-model requests it took, in order
  std::optional<std::string> failure; // set by the proposer actor when no proposal could be made:
                                     // why, for the job's failure reason (an error would be
                                     // taken for a dead actor and re-sent)
  std::int64_t memory_held = 0;      // entries of the job's memory this proposer keeps after this
                                     // proposal (the next request may start there); 0: it keeps
                                     // none, send the whole memory every time
  std::optional<std::int64_t> resend_memory_from; // set: the request's memory did not continue
                                     // what this proposer holds (it was restarted); no candidates:
                                     // ask again with the memory from this entry (0: all of it)
  friend bool operator==(const proposal&, const proposal&) = default;
};

class proposer {
public:
  virtual ~proposer() = default;
  /// K candidates for the request's iteration; an error names why none could be made (the job's
  /// problem does not load, ...). An empty proposal is not an error: the job has run out of ideas.
  virtual expected<proposal, std::string> propose(const propose_request& request) = 0;
};

struct llm_context; // llm_proposer.hpp: the model, the run directory, the compiler

/// The problems a campaign has already loaded and validated, by path (a job's problem_path as
/// its requests name it): the tuner builds its search space from these instead of reading the
/// file again.
using parsed_problems = std::map<std::string, std::shared_ptr<const config::problem_spec>>;

/// The campaign's problems, by their paths.
parsed_problems problems_of(const config::campaign_spec& spec);

/// When a proposer can make a job's first proposal. The tuner's first points depend on the search
/// space and the points known invalid, never on a time, so it is asked while the baseline races
/// and its branches are built by the time the baseline's race ends (job_driver: unless the
/// baseline's diagnosis is awaited first, under champions = each); a language model is told the
/// time to beat, so it is asked once the baseline is measured.
enum class first_proposal { after_baseline, while_baseline_races };
first_proposal first_proposal_of(config::proposer_kind kind);

/// The proposer the campaign asks for. The llm and replay kinds need `llm` (their model,
/// transcripts and compiler); an error names what is missing. `problems`: the campaign's parsed
/// problems (the tuner loads a problem it is not given: tests, tools).
expected<std::unique_ptr<proposer>, std::string> make_proposer(const config::proposer_spec& spec,
                                                               const llm_context* llm = nullptr,
                                                               parsed_problems problems = {});

} // namespace warpforge::pipeline
