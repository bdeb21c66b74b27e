#include "llm/prompt/prompt.hpp"

#include "llm/prompt/judge.hpp"
#include "llm/prompt/memory.hpp"
#include "llm/prompt/sections.hpp"

#include <algorithm>
#include <string_view>

namespace warpforge::embedded {
extern const std::string_view llm_prompt_propose_md;
extern const std::string_view llm_prompt_fix_compile_md;
extern const std::string_view llm_prompt_fix_correctness_md;
} // namespace warpforge::embedded

namespace warpforge::llm {

namespace {

std::string role_block(const prompt_inputs& in) {
  std::string out{embedded::llm_prompt_propose_md};
  return out + "\n# Reply format\n" + in.reply_format + (in.reply_format.ends_with('\n') ? "" : "\n");
}

std::string job_block(const prompt_inputs& in, const skill_library& skills) {
  return render_gpu(in.gpu) + "\n" + render_problem(in.problem) + "\n" + render_methods(in.methods) +
         "\n## Playbooks (one per diagnosis finding; the full text of those that fire comes with the diagnosis)\n" +
         skills.catalogue();
}

/// Frozen memory: the same for every round of this run, so it sits in the cached prefix.
std::string frozen_block(const prompt_inputs& in) {
  std::string out;
  if (!in.past_runs.empty())
    out += "## Memory of earlier runs on this kernel\n" + in.past_runs + (in.past_runs.ends_with('\n') ? "" : "\n");
  if (!in.patterns.empty())
    out += std::string{out.empty() ? "" : "\n"} + "## Patterns that worked on other kernels\n" + in.patterns +
           (in.patterns.ends_with('\n') ? "" : "\n");
  return out;
}

std::string diagnosis_section(const prompt_inputs& in) {
  if (!in.diagnosis)
    return "## Diagnosis of the current best\n" + render_not_profiled(in.gpu);
  return render_diagnosis(*in.diagnosis);
}

std::string fired_skills_section(const prompt_inputs& in, const skill_library& skills) {
  if (!in.diagnosis)
    return "";
  std::string out;
  for (const auto& id : skills.select(in.diagnosis->fired)) {
    // The playbook's own first line becomes its heading here, under this section's level.
    const auto* s = skills.find(id);
    const auto& off = in.diagnosis->off_level;
    if (std::find(off.begin(), off.end(), id) != off.end()) {
      out.append("### ").append(id).append(": not for this kernel: its binding level is not DRAM (")
          .append(in.diagnosis->bottleneck).append("); follow the binding level's advice in the diagnosis\n");
      continue;
    }
    const auto newline = s->text.find('\n');
    const auto body = newline == std::string::npos ? std::string{} : s->text.substr(newline + 1);
    out.append("### ").append(id).append(": ").append(s->summary).append("\n").append(body);
    if (!body.empty() && !body.ends_with('\n'))
      out += '\n';
  }
  return out.empty() ? out : "## Playbooks for the fired findings\n" + out;
}

std::string fixes_section(const std::vector<fix_request>& fixes) {
  if (fixes.empty())
    return "";
  std::string out = "## Failures of this round to learn from\n";
  for (const auto& f : fixes)
    out += "### " + f.variant + " (" + std::string{to_string(f.what)} +
           (f.what == fix_request::kind::compile ? " error)\n" : " failure)\n") + code_block(f.report, "text");
  return out;
}

std::string repeats_section(const std::vector<repeat_fact>& repeats) {
  if (repeats.empty())
    return "";
  std::string out = "## You repeated yourself\nThese variants of your last round were the same kernel as a branch "
                    "already measured (the same code once comments and whitespace are set aside, the same defines "
                    "and launch), so they were not built or measured again. Do not send them again: write something "
                    "that differs.\n";
  for (const auto& r : repeats)
    out += "- " + r.variant + " (iteration " + std::to_string(r.iteration) + ") repeated " + r.earlier_variant +
           " (iteration " + std::to_string(r.earlier_iteration) + ", branch " + std::to_string(r.earlier_branch) + ")\n";
  return out;
}

std::string ablations_section(const prompt_inputs& in) {
  if (in.ablations_wanted.empty())
    return "";
  std::string out = "## Leave-one-out variants wanted\nThe current best's methods below have no measured attribution "
                    "yet. A variant that keeps one of them claims it and brings its leave-one-out for it in "
                    "`ablations` (rule 9).\n";
  for (const auto& method : in.ablations_wanted)
    out += "- " + method + "\n";
  return out;
}

std::string task_section(const prompt_inputs& in) {
  return "## Task\nWrite K = " + std::to_string(in.k) +
         " new variants of the current best that share one set of methods and differ in parameters, chosen from "
         "the diagnosis and the memory. For each variant claiming N >= 2 methods, give its N leave-one-out "
         "versions in `ablations`, one per claimed method (rule 9). Follow the rules and the reply format "
         "exactly.\n";
}

} // namespace

std::vector<std::string> stable_blocks(const prompt_inputs& inputs, const skill_library& skills) {
  std::vector<std::string> blocks{role_block(inputs), job_block(inputs, skills)};
  if (auto frozen = frozen_block(inputs); !frozen.empty())
    blocks.push_back(std::move(frozen));
  return blocks;
}

prompt build_propose_prompt(const prompt_inputs& in, const skill_library& skills) {
  prompt p{stable_blocks(in, skills), {}};
  std::string& out = p.changing;
  out += render_best(in);
  const auto section = [&out](const std::string& text) {
    if (!text.empty())
      out.append("\n").append(text);
  };
  section(diagnosis_section(in));
  if (in.judge)
    section(render_judge(*in.judge));
  section(fired_skills_section(in, skills));
  section("## This run's attempts\n" + render_attempts(in.this_run));
  section(fixes_section(in.fixes));
  section(repeats_section(in.repeats));
  section(ablations_section(in));
  section(task_section(in));
  return p;
}

prompt build_fix_prompt(const prompt_inputs& in, const fix_request& fix, const skill_library& skills) {
  const bool compile = fix.what == fix_request::kind::compile;
  prompt p{stable_blocks(in, skills), {}};
  std::string& out = p.changing;
  out += "## Variant to fix: " + fix.variant + (compile ? " (compile error)\n" : " (wrong results)\n");
  out += std::string{compile ? embedded::llm_prompt_fix_compile_md : embedded::llm_prompt_fix_correctness_md};
  out += "\n### Its code\n" + code_block(fix.code);
  out += std::string{compile ? "\n### The compiler log\n" : "\n### The comparison report\n"} +
         code_block(fix.report, "text");
  std::vector<attempt_fact> earlier;
  for (const auto& a : in.this_run)
    if (a.variant == fix.variant && (fix.iteration == 0 || a.iteration == fix.iteration))
      earlier.push_back(a);
  if (!earlier.empty())
    out.append("\n## Earlier tries of this variant\n").append(render_attempts(earlier));
  if (!compile)
    out.append("\n").append(render_best(in)).append("(The current best is correct: compare its indexing and synchronisation.)\n");
  out += "\n## Task\nReturn the corrected variant " + fix.variant +
         " as the only variant of the reply, with the same name and the same claimed methods, whole, with its "
         "leave-one-out versions in `ablations` when it claims two or more methods (rule 9).\n";
  return p;
}

} // namespace warpforge::llm
