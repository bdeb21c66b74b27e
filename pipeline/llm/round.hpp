#pragma once
// One round of an llm proposer with the model: the judge's two bottlenecks, a compacted memory,
// the K variants (re-asked with the precise reason while a reply breaks the envelope's rules),
// and the repair of a variant that failed to compile or failed correctness. Every request goes
// through one chat client (the transcript recorder) and is accounted as a model_call.
//
//   llm_round round{chat, spec, contract, names, limits, run_dir, transcripts};
//   inputs.judge = round.judge(inputs);               // optional
//   auto variants = round.propose(inputs, skills);     // expected<vector<proposed_variant>, string>
//   auto fixed = round.fix(inputs, fix, skills);       // expected<proposed_variant, string>
//   proposal.calls = round.calls();

#include "config/campaign_spec.hpp"
#include "foundation/expected/expected.hpp"
#include "llm/chat/chat.hpp"
#include "llm/prompt/facts.hpp"
#include "llm/prompt/prompt.hpp"
#include "llm/prompt/skills.hpp"
#include "llm/reply/contract.hpp"
#include "llm/reply/envelope.hpp"
#include "llm/reply/launch.hpp"
#include "pipeline/llm/transcripts.hpp"
#include "pipeline/proposer.hpp"

#include <optional>
#include <string>
#include <vector>

namespace warpforge::pipeline {

class llm_round {
public:
  /// `names`: the problem's dims (and nothing else): what a variant's launch may use besides its
  /// own defines.
  llm_round(recorded_chat& chat, const config::llm_spec& spec, llm::kernel_contract contract,
            expression::integer_values names, llm::device_limits limits, std::filesystem::path run_dir);

  /// Two cited bottlenecks of the current best (one re-ask when the reply breaks the schema);
  /// none when the model could not give a valid one.
  std::optional<llm::judge_verdict> judge(const llm::prompt_inputs& inputs);
  /// The job's rendered memory rewritten by the compaction model; none when that failed.
  std::optional<std::string> compact(const std::string& memory);
  /// The round's variants (their launches evaluated and within the device's limits); an error
  /// when no valid reply came within the re-asks, or the model could not be reached.
  expected<std::vector<llm::proposed_variant>, std::string> propose(const llm::prompt_inputs& inputs,
                                                                    const llm::skill_library& skills);
  /// One variant repaired: the model's answer to its compiler log or comparison report.
  expected<llm::proposed_variant, std::string> fix(const llm::prompt_inputs& inputs, const llm::fix_request& fix,
                                                   const llm::skill_library& skills);

  /// The launch of `v` (or of an ablation: same rules) evaluated, or the reason it is invalid.
  expected<std::optional<config::launch_geometry>, std::string>
  launch_of(const std::optional<llm::variant_launch>& launch, const expression::integer_values& defines) const;

  const std::vector<model_call>& calls() const { return calls_; }
  /// Why the last request failed for want of budget (the campaign ends its LLM work cleanly).
  bool budget_spent() const { return budget_spent_; }

private:
  expected<llm::chat_reply, std::string> call(llm::chat_request request);
  llm::chat_request request_for(const llm::prompt& prompt, std::string purpose) const;
  /// Asks until the reply parses (and its launches evaluate), re-asking with the problems.
  expected<llm::envelope, std::string> ask_envelope(llm::chat_request request, std::uint32_t max_variants);
  std::vector<std::string> launch_problems(const llm::envelope& e) const;

  recorded_chat& chat_;
  const config::llm_spec& spec_;
  llm::kernel_contract contract_;
  expression::integer_values names_;
  llm::device_limits limits_;
  std::filesystem::path run_dir_;
  std::vector<model_call> calls_;
  bool budget_spent_ = false;
};

} // namespace warpforge::pipeline
