#include "pipeline/llm/deploy_fix.hpp"

#include "config/problem_spec.hpp"
#include "gpu/compile/include_check.hpp"
#include "llm/prompt/skills.hpp"
#include "llm/reply/contract.hpp"
#include "llm/reply/parse.hpp"
#include "pipeline/job_setup.hpp"
#include "pipeline/llm/model.hpp"
#include "pipeline/records.hpp"
#include "report/campaign_report.hpp"
#include "pipeline/llm/facts.hpp"
#include "pipeline/llm/round.hpp"
#include "pipeline/llm/transcripts.hpp"
#include "config/toml_reader/placed_error.hpp"

#include <algorithm>
#include <stdexcept>

namespace warpforge::pipeline {

namespace fs = std::filesystem;

namespace {

// The variant's name in the prompt and the transcripts: a correction keeps it.
constexpr std::string_view fixed_name = "deployed";

std::vector<std::string> catalog_ids() {
  std::vector<std::string> ids;
  for (const auto& m : method_facts())
    ids.push_back(m.id);
  return ids;
}

// The end of the build's output: where make, cmake and nvcc stop.
std::string log_tail(std::string_view log) {
  if (log.size() <= deploy_fix_log_bytes)
    return std::string{log};
  return "[... the first " + std::to_string(log.size() - deploy_fix_log_bytes) + " bytes cut]\n" +
         std::string{log.substr(log.size() - deploy_fix_log_bytes)};
}

// What makes this fix different from an NVRTC one: where the code went, which compiler failed,
// and what must stay (the host code around it launches the kernel with the problem's geometry).
std::string build_report(const deploy_fix_setup& setup, std::string_view build_log) {
  const std::string place = setup.region.empty()
                              ? "the whole file " + setup.target_file
                              : "the region `" + setup.region + "` of " + setup.target_file;
  return "This kernel was deployed into the user's own project: the code above is exactly what was written into " +
         place + ", and the project's build `" + setup.build_command +
         "` failed (the project's compiler, e.g. nvcc and a host compiler, not NVRTC).\n"
         "Return the corrected text for that same place, whole: keep the #ifndef/#define lines and the entry's "
         "linkage, name, template parameters and parameter types, and give no `launch` (the project's host code launches the kernel with the problem's "
         "geometry).\n\nThe build's output:\n" +
         log_tail(build_log);
}

// The corrected variant as the text for the target: its own defines the code does not define
// already, guarded like deploy's source_splice writes them, then its code.
std::string written_text(const llm::proposed_variant& v) {
  std::string out;
  for (const auto& [name, value] : v.defines)
    if (v.code.find("#define " + name + " ") == std::string::npos)
      out += "#ifndef " + name + "\n#define " + name + " " + std::to_string(value) + "\n#endif\n";
  out += v.code;
  if (!out.empty() && out.back() != '\n')
    out += '\n';
  return out;
}

struct fixer_state {
  deploy_fix_setup setup;
  std::unique_ptr<job_setup> job;
  llm::kernel_contract contract;
  llm::problem_facts problem;
  expression::integer_values dims;
  llm::skill_library skills;
  std::unique_ptr<recorded_chat> chat; // made at the first fix: a deploy that builds leaves no folder
  std::shared_ptr<deploy_fix_log> log;

  llm::prompt_inputs inputs(std::string_view written) const {
    llm::prompt_inputs in;
    in.gpu.name = "the GPU of the user's project";
    in.gpu.arch = "unknown";
    in.problem = problem;
    in.best_source = std::string{written};
    in.methods = method_facts();
    in.reply_format = std::string{llm::envelope_instructions()};
    in.k = 1;
    return in;
  }

  std::optional<std::string> none(std::string why) {
    log->notes.push_back("deploy fix " + std::to_string(log->notes.size() + log->corrections + 1) + ": " + why);
    return std::nullopt;
  }

  std::optional<std::string> fix(std::string_view build_log, std::string_view written) {
    if (!chat)
      chat = std::make_unique<recorded_chat>(*setup.model, setup.transcripts);
    llm_round round{*chat, setup.llm, contract, dims, llm::device_limits{}, setup.run_dir};
    const llm::fix_request request{std::string{fixed_name}, llm::fix_request::kind::compile, std::string{written},
                                   build_report(setup, build_log)};
    auto fixed = round.fix(inputs(written), request, skills);
    log->calls.insert(log->calls.end(), round.calls().begin(), round.calls().end());
    if (!fixed)
      return none(fixed.error());
    if (fixed->launch)
      return none("the correction brings its own launch geometry; the project launches the kernel with the problem's");
    // The project's compiler quotes what a file it includes holds into the build output, which
    // goes back to the model: a correction naming a file outside the project is not written.
    if (auto refusal = gpu::include_refusal(fixed->code))
      return none("the correction names a file it may not include: " + *refusal);
    ++log->corrections;
    return written_text(*fixed);
  }
};

} // namespace

fs::path deploy_fix_folder(const fs::path& run_dir, const std::string& job, const std::string& stamp) {
  return run_dir / "llm" / job / "deploy-fix" / stamp;
}

expected<deploy_fixer, std::string> make_deploy_fixer(deploy_fix_setup setup) {
  if (!setup.model)
    return unexpected{std::string{"deploy fix: no model to ask"}};
  auto spec = config::load_problem(setup.problem_path.string());
  if (!spec)
    return unexpected{"deploy fix: cannot load the problem " + setup.problem_path.string() + ": " +
                      toml_reader::to_string(spec.error())};
  auto opened = open_job(setup.job, setup.problem_path, std::move(*spec));
  if (!opened)
    return unexpected{"deploy fix: " + opened.error()};
  auto skills = llm::skill_library::built_in();
  if (!skills) // compiled-in data that does not load is a broken build
    throw std::logic_error("llm skills: " + skills.error());
  auto state = std::make_shared<fixer_state>(fixer_state{std::move(setup), nullptr, {}, {}, {}, std::move(*skills), nullptr,
                                                                       std::make_shared<deploy_fix_log>()});
  state->job = std::make_unique<job_setup>(std::move(*opened));
  auto contract = llm::contract_from_source(state->job->kernel_text, state->job->problem.kernel.entry, catalog_ids(), 1);
  if (!contract)
    return unexpected{"deploy fix: " + state->setup.problem_path.string() + ": the kernel's contract: " + contract.error()};
  state->contract = std::move(*contract);
  state->problem = problem_facts_of(*state->job, state->contract);
  for (const auto& d : state->job->problem.dims)
    state->dims[d.name] = d.value;
  auto log = state->log;
  return deploy_fixer{[state](std::string_view build_log, std::string_view written) { return state->fix(build_log, written); },
                      std::move(log)};
}

expected<std::optional<deploy_fixer>, std::string> deploy_fixer_for_run(const deploy_fix_place& place) {
  auto run = report::load_report(place.run_dir);
  if (!run)
    return unexpected{"deploy fix: " + storage::to_string(run.error())};
  auto campaign = config::parse_campaign(run->campaign.spec_toml, run->campaign.spec_path);
  if (!campaign)
    return unexpected{"deploy fix: the campaign spec kept in " + place.run_dir.string() + ": " +
                      toml_reader::to_string(campaign.error())};
  if (!campaign->llm)
    return std::optional<deploy_fixer>{}; // no [llm]: a build failure rolls back
  const auto job = std::find_if(run->jobs.begin(), run->jobs.end(), [&](const auto& j) { return j.row.name == place.job; });
  if (job == run->jobs.end())
    return unexpected{"deploy fix: no job '" + place.job + "' in " + place.run_dir.string()};
  auto model = model_for(*campaign->llm);
  if (!model)
    return unexpected{"deploy fix: " + model.error()};
  deploy_fix_setup setup;
  setup.llm = *campaign->llm;
  setup.model = std::move(*model);
  setup.run_dir = place.run_dir;
  setup.job = place.job;
  setup.problem_path = job->row.problem_path;
  setup.build_command = place.build_command;
  setup.target_file = place.target_file;
  setup.region = place.region;
  setup.transcripts = deploy_fix_folder(place.run_dir, place.job, place.work_dir.filename().string());
  auto fixer = make_deploy_fixer(std::move(setup));
  if (!fixer)
    return unexpected{fixer.error()};
  fixer->tries = static_cast<int>(campaign->llm->max_fix_tries);
  return std::optional<deploy_fixer>{std::move(*fixer)};
}

std::vector<feed::event> deploy_fix_events(const std::string& job, const deploy_fix_log& log) {
  std::vector<feed::event> events;
  std::int64_t seq = 0;
  for (const auto& c : log.calls)
    events.push_back(job_event(feed::event_type::llm_call, job, 0, feed::no_branch, feed::no_gpu,
                               feed::detail{}.add("stage", "deploy").add("call", ++seq).add("purpose", c.purpose)
                                 .add("model", c.model).add("outcome", outcome_word(c))
                                 .add("input_tokens", c.input_tokens).add("output_tokens", c.output_tokens)
                                 .add("cache_read_tokens", c.cache_read_tokens)
                                 .add("cache_write_tokens", c.cache_write_tokens)
                                 .add("cost_usd", c.cost_usd).add("seconds", c.seconds)
                                 .add("attempts", static_cast<std::int64_t>(c.attempts))
                                 .add("transcript", c.transcript).json()));
  for (const auto& note : log.notes)
    events.push_back(job_event(feed::event_type::warning, job, 0, feed::no_branch, feed::no_gpu,
                               feed::detail{}.add("message", note.substr(0, 2000)).add("component", "deployer").json()));
  return events;
}

} // namespace warpforge::pipeline
