#include "pipeline/llm/round.hpp"

#include "llm/prompt/compaction.hpp"
#include "llm/prompt/judge.hpp"
#include "llm/reply/parse.hpp"

#include <chrono>

namespace warpforge::pipeline {

namespace {

model_call call_record(const llm::chat_request& request) {
  model_call c;
  c.purpose = request.purpose;
  c.model = request.model;
  return c;
}

void account(model_call& c, const llm::chat_reply& reply) {
  if (!reply.model.empty())
    c.model = reply.model;
  c.input_tokens = reply.usage.input;
  c.output_tokens = reply.usage.output;
  c.cache_read_tokens = reply.usage.cache_read;
  c.cache_write_tokens = reply.usage.cache_write;
  c.cost_usd = reply.cost_usd;
  c.seconds = reply.seconds;
  c.attempts = reply.attempts;
}

} // namespace

llm_round::llm_round(recorded_chat& chat, const config::llm_spec& spec, llm::kernel_contract contract,
                     expression::integer_values names, llm::device_limits limits, std::filesystem::path run_dir)
    : chat_(chat), spec_(spec), contract_(std::move(contract)), names_(std::move(names)), limits_(limits),
      run_dir_(std::move(run_dir)) {}

expected<llm::chat_reply, std::string> llm_round::call(llm::chat_request request) {
  auto record = call_record(request);
  const auto started = std::chrono::steady_clock::now();
  auto answer = chat_.chat(request);
  record.transcript = chat_.last_file(run_dir_);
  if (!answer) {
    record.error = answer.error().kind;
    record.attempts = answer.error().attempts;
    record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    budget_spent_ = budget_spent_ || answer.error().kind == llm::chat_error_kind::budget_exhausted;
    calls_.push_back(std::move(record));
    return unexpected{"the model (" + request.purpose + "): " + std::string{llm::to_string(answer.error().kind)} +
                      ": " + answer.error().message};
  }
  account(record, *answer);
  calls_.push_back(std::move(record));
  return std::move(*answer);
}

llm::chat_request llm_round::request_for(const llm::prompt& prompt, std::string purpose) const {
  llm::chat_request r;
  r.model = spec_.model;
  for (const auto& block : prompt.stable)
    r.system.push_back({block, false});
  // One breakpoint after the last stable block: everything before it is the cached prefix.
  if (!r.system.empty())
    r.system.back().cache = true;
  r.messages.push_back({llm::role::user, prompt.changing});
  r.max_tokens = spec_.max_tokens;
  r.temperature = spec_.temperature;
  r.purpose = std::move(purpose);
  return r;
}

expected<std::optional<config::launch_geometry>, std::string>
llm_round::launch_of(const std::optional<llm::variant_launch>& launch, const expression::integer_values& defines) const {
  if (!launch)
    return std::optional<config::launch_geometry>{};
  auto names = names_;
  for (const auto& [name, value] : defines)
    names[name] = value;
  auto geometry = llm::evaluate_launch(*launch, names, limits_);
  if (!geometry)
    return unexpected{geometry.error()};
  return std::optional<config::launch_geometry>{*geometry};
}

std::vector<std::string> llm_round::launch_problems(const llm::envelope& e) const {
  std::vector<std::string> problems;
  for (std::size_t i = 0; i < e.variants.size(); ++i) {
    const auto& v = e.variants[i];
    if (auto l = launch_of(v.launch, v.defines); !l)
      problems.push_back("variants[" + std::to_string(i) + "] (" + v.name + ").launch: " + l.error());
    for (std::size_t a = 0; a < v.ablations.size(); ++a)
      if (auto l = launch_of(v.ablations[a].launch, v.ablations[a].defines); !l)
        problems.push_back("variants[" + std::to_string(i) + "].ablations[" + std::to_string(a) + "].launch: " + l.error());
  }
  return problems;
}

expected<llm::envelope, std::string> llm_round::ask_envelope(llm::chat_request request, std::uint32_t max_variants) {
  auto contract = contract_;
  contract.max_variants = max_variants;
  for (std::uint32_t reask = 0;; ++reask) {
    auto reply = call(request);
    if (!reply)
      return unexpected{reply.error()};
    auto parsed = llm::parse_reply(reply->text, contract);
    std::vector<llm::reply_problem> problems;
    if (parsed) {
      for (auto& why : launch_problems(*parsed))
        problems.push_back({llm::reply_fault::bad_launch, "", std::move(why)});
      if (problems.empty())
        return std::move(*parsed);
    } else {
      problems = parsed.error();
    }
    if (reask >= spec_.max_reasks)
      return unexpected{"no valid reply after " + std::to_string(reask) + " re-ask(s): " +
                        std::string{llm::to_string(problems.front().fault)} + ": " + problems.front().reason};
    request.messages.push_back({llm::role::assistant, reply->text});
    request.messages.push_back({llm::role::user, llm::reask_text(problems)});
    request.purpose = "reask";
  }
}

std::optional<llm::judge_verdict> llm_round::judge(const llm::prompt_inputs& inputs) {
  if (!inputs.diagnosis || inputs.diagnosis->metrics.empty())
    return std::nullopt;
  auto request = request_for(llm::build_judge_prompt(inputs), "judge");
  request.max_tokens = std::min<std::uint32_t>(spec_.max_tokens, 2048);
  for (int ask = 0; ask < 2; ++ask) {
    auto reply = call(request);
    if (!reply)
      return std::nullopt;
    auto verdict = llm::parse_judge(reply->text, inputs.diagnosis->metrics);
    if (verdict)
      return *verdict;
    request.messages.push_back({llm::role::assistant, reply->text});
    request.messages.push_back({llm::role::user, "Your verdict was refused: " + verdict.error() +
                                                   "\nAnswer again with the JSON object only, citing metrics "
                                                   "exactly as the prompt shows them."});
  }
  return std::nullopt;
}

std::optional<std::string> llm_round::compact(const std::string& memory) {
  auto request = request_for(llm::build_compaction_prompt(memory), "compact");
  if (!spec_.compaction_model.empty())
    request.model = spec_.compaction_model;
  auto reply = call(request);
  if (!reply)
    return std::nullopt;
  auto compacted = llm::parse_compaction(reply->text);
  if (!compacted)
    return std::nullopt;
  return llm::render(*compacted);
}

expected<std::vector<llm::proposed_variant>, std::string> llm_round::propose(const llm::prompt_inputs& inputs,
                                                                            const llm::skill_library& skills) {
  auto envelope = ask_envelope(request_for(llm::build_propose_prompt(inputs, skills), "propose"), inputs.k);
  if (!envelope)
    return unexpected{envelope.error()};
  return std::move(envelope->variants);
}

expected<llm::proposed_variant, std::string> llm_round::fix(const llm::prompt_inputs& inputs, const llm::fix_request& fix,
                                                            const llm::skill_library& skills) {
  const auto purpose = fix.what == llm::fix_request::kind::compile ? "fix_compile" : "fix_correctness";
  auto envelope = ask_envelope(request_for(llm::build_fix_prompt(inputs, fix, skills), purpose), 1);
  if (!envelope)
    return unexpected{envelope.error()};
  auto variant = std::move(envelope->variants.front());
  variant.name = fix.variant; // a repair keeps its variant's name: its tries are counted together
  return variant;
}

} // namespace warpforge::pipeline
