#pragma once
// llm_proposer: a language model writes the next kernels. Each iteration of a job is one round
// (llm_round.hpp): the judge names two cited bottlenecks of the current best, the model writes K
// variants that share the chosen methods and differ in parameters (with their leave-one-out
// versions), each variant is compiled here with NVRTC and sent back with the compiler log while it
// fails (bounded), and variants that failed correctness in the previous iteration go back with
// their comparison report (bounded). What comes out are ordinary candidates: their code, claimed
// methods, own defines and launch; the pipeline checks SASS, correctness and speed and ablates them
// like the tuner's.
//
// Memory: the job's attempts (every branch of every iteration, and every compile try made here)
// go into each prompt; the cross-kernel pattern library (all jobs' accepted attempts, kept across
// runs next to the run directories) goes into its cached part. Past a size threshold a cheaper
// model compacts the job's memory (the raw memory stays in the transcripts and memory.md).
//
// Transcripts of every request are kept in <run_dir>/llm/ (llm_transcripts.hpp). The `replay`
// kind is this proposer answering from an earlier run's transcripts instead of a provider: with
// the same replies it makes the same decisions, with no network.
//
//   llm_proposer p{context};
//   auto next = p.propose(request);   // proposal: candidates, note, calls (tokens and dollars)

#include "config/campaign_spec.hpp"
#include "llm/chat/chat.hpp"
#include "llm/prompt/patterns.hpp"
#include "llm/prompt/skills.hpp"
#include "llm/reply/contract.hpp"
#include "llm/reply/launch.hpp"
#include "pipeline/build.hpp"
#include "pipeline/job_setup.hpp"
#include "pipeline/proposer.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace warpforge::pipeline {

class llm_round;

/// What an llm proposer needs beyond the [llm] table.
struct llm_context {
  config::llm_spec llm;
  std::filesystem::path patterns_file;     // the cross-run pattern library; empty: beside the
                                           // run directories (<run_root>/llm-patterns.json)
  compile_function compile;                // NVRTC (the compile-fix loop); empty: not checked here
  llm::device_limits limits;               // a variant's launch must fit them
  std::shared_ptr<llm::chat_client> model; // the provider; unused when replaying
  std::filesystem::path replay_from;       // non-empty: answer from this run's transcripts
  std::uint32_t max_variants = 8;          // a reply may not bring more
  parsed_problems problems;                // the campaign's problems as loaded (one not among them
                                           // is read from its file)
};

class llm_proposer final : public proposer {
public:
  explicit llm_proposer(llm_context context);
  ~llm_proposer() override;
  /// Thread-safe across jobs (one call per job at a time, as the engine asks).
  expected<proposal, std::string> propose(const propose_request& request) override;

private:
  struct job_state;
  expected<job_state*, std::string> job_for(const propose_request& request);
  llm::prompt_inputs inputs_for(job_state& job, const propose_request& request) const;
  std::vector<llm::fix_request> correctness_fixes(job_state& job, const propose_request& request) const;
  /// Compiles the variant; while NVRTC rejects it, sends it back with the log (bounded).
  llm::proposed_variant compiled(job_state& job, llm_round& round, const llm::prompt_inputs& inputs,
                                 llm::proposed_variant variant, const std::string& arch, std::vector<std::string>& tries);
  std::optional<std::string> compile_error(const job_state& job, const llm::proposed_variant& variant,
                                           const std::string& arch) const;
  candidate candidate_of(const job_state& job, const llm_round& round, const llm::proposed_variant& v) const;
  void learn_patterns(job_state& job, const propose_request& request);
  /// The pattern library's file: the context's, else beside the run directories.
  std::filesystem::path patterns_file(const propose_request& request) const;
  /// Past the threshold, this run's older attempts are replaced by their compaction.
  void compact_memory(job_state& job, llm_round& round, llm::prompt_inputs& inputs, const propose_request& request) const;
  struct measured_contents;
  /// The job's branches that came to an outcome, by content key (content_key.hpp), from the
  /// memory and the iterations' proposal.json.
  measured_contents measured(job_state& job, const propose_request& request) const;
  /// The last round's candidates that were recorded as duplicates, for the prompt.
  std::vector<llm::repeat_fact> repeats_of(const measured_contents& known, const propose_request& request) const;
  /// Judge, repairs, new variants, compile-fix loop: the round's proposal (its calls accounted even
  /// when no variant came of them). A variant whose content was measured before is handed on as a
  /// duplicate (candidate::duplicate_of), not compiled.
  proposal run_round(job_state& job, llm_round& round, llm::prompt_inputs inputs, const propose_request& request,
                     const measured_contents& known);

  llm_context context_;
  llm::skill_library skills_;
  std::mutex mutex_; // guards jobs_ and patterns_
  std::map<std::string, std::unique_ptr<job_state>> jobs_;
  llm::pattern_library patterns_;
  bool patterns_loaded_ = false;
};

} // namespace warpforge::pipeline
