#pragma once
// The llm proposer's compile-fix loop for a deploy: when a champion written into the user's
// project does not build there, the campaign's model gets the project's build output, the text
// that was written and the kernel's contract, and answers the corrected kernel in the proposer's
// envelope. The same prompt (build_fix_prompt, compile kind) and the same reply checks as a
// proposed variant (llm_round::fix: no code, elided code, a changed entry or signature, host
// code... are re-asked with the reason), so there is one way to ask a model for a fix.
//
//   auto fixer = pipeline::make_deploy_fixer(setup);   // expected<deploy_fixer, string>
//   request.fix_build = fixer->fix;                     // deploy::run_deploy calls it
//   ... after run_deploy: fixer->log->calls (accounted), fixer->log->notes (why none came)
//
// Every call is written, request and raw reply, to `setup.transcripts`
// (<run>/llm/<job>/deploy-fix/<deploy stamp>/NN-fix_compile.json, NN-reask.json). No CAF, no
// deploy/ types (deploy/ links pipeline): the function has deploy::fix_build_function's signature.

#include "config/campaign_spec.hpp"
#include "foundation/expected/expected.hpp"
#include "feed/event.hpp"
#include "llm/chat/chat.hpp"
#include "pipeline/proposer.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::pipeline {

/// (the build's output, the text written: defines then the kernel) -> the corrected text for the
/// same place, or none. deploy::fix_build_function, spelled out.
using build_fix_function =
    std::function<std::optional<std::string>(std::string_view build_log, std::string_view written)>;

struct deploy_fix_setup {
  config::llm_spec llm;                    // the campaign's [llm]
  std::shared_ptr<llm::chat_client> model; // its provider (model_for)
  std::filesystem::path run_dir;           // the run the champion comes from
  std::string job;
  std::filesystem::path problem_path;      // the job's problem: the kernel's entry and signature
  std::string build_command;               // the project's build, named in the prompt
  std::string target_file;                 // the file written, relative to the project
  std::string region;                      // its region ("" = the whole file), named in the prompt
  std::filesystem::path transcripts;       // where the calls are written (deploy_fix_folder)
};

/// What the fixer did, for the caller to account once the deploy ended.
struct deploy_fix_log {
  std::vector<model_call> calls;  // every request, in order (transcript relative to run_dir)
  std::vector<std::string> notes; // one per fix that returned none: why
  int corrections = 0;            // fixes that returned a corrected text
};

struct deploy_fixer {
  build_fix_function fix;            // for deploy_request::fix_build
  std::shared_ptr<deploy_fix_log> log;
  int tries = 2;                     // for deploy_request::fix_tries: the campaign's [llm] max_fix_tries
};

/// <run_dir>/llm/<job>/deploy-fix/<stamp>: one deploy's calls (stamp: its work folder's name,
/// so a later deploy of the same job keeps the earlier one's transcripts).
std::filesystem::path deploy_fix_folder(const std::filesystem::path& run_dir, const std::string& job,
                                        const std::string& stamp);

/// At most this many bytes of the build's output go into the prompt: its end (where make and
/// nvcc stop), preceded by a line saying how much was cut.
inline constexpr std::size_t deploy_fix_log_bytes = 6000;

/// The fixer for `setup`. Errors: no model, the problem does not load, its kernel holds no
/// definition of the entry (the contract a correction must keep: its linkage, name, template
/// form and parameter types).
expected<deploy_fixer, std::string> make_deploy_fixer(deploy_fix_setup setup);

/// Where a deploy of a run's job writes, as the fixer names it (deploy_request's fields).
struct deploy_fix_place {
  std::filesystem::path run_dir;
  std::string job;
  std::string build_command;
  std::string target_file; // relative to the project
  std::string region;      // "" = the whole file
  std::filesystem::path work_dir; // its name is the transcripts' folder name
};

/// The fixer of a deploy from a finished run, when that run's campaign (its spec, as the store
/// kept it) has an [llm] table — the llm proposer's; none when it has not. The model is made with
/// model_for; its key is read from the named variable at each request. Errors: the run or its
/// spec cannot be read, the [llm] table gives no client, the job's problem does not load.
expected<std::optional<deploy_fixer>, std::string> deploy_fixer_for_run(const deploy_fix_place& place);

/// The feed events of a deploy's fixes: an llm_call per call (iteration 0, "stage": "deploy"),
/// and a warning per fix that gave none, with its reason.
std::vector<feed::event> deploy_fix_events(const std::string& job, const deploy_fix_log& log);

} // namespace warpforge::pipeline
