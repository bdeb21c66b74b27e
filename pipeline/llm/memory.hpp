#pragma once
// What an llm proposer remembers, read back from the run directory so that a restarted proposer
// or a resumed campaign knows exactly what an undisturbed one would: every branch of the job
// (its variant's name and code from the iteration's proposal.json, its verdict from the attempt
// memory), every compile try made inside a round (tries.txt in the round's transcript folder),
// and the frozen lessons of earlier runs (the pattern library).

#include "llm/prompt/facts.hpp"
#include "llm/prompt/patterns.hpp"
#include "pipeline/proposer.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace warpforge::pipeline {

/// The baseline's median, seconds, when the memory holds it.
std::optional<double> baseline_seconds(const std::vector<attempt>& memory);

/// This run's attempts as the prompt shows them: each branch by its variant's name, its verdict,
/// why, speed-up against the baseline and, for an accepted one, its leave-one-out results; and
/// each compile try a round made before handing its variant on.
std::vector<llm::attempt_fact> attempt_facts_of(const std::filesystem::path& run_dir, const propose_request& request);

/// A variant of the previous iteration whose outputs were wrong: its code and the comparison.
struct failed_variant {
  std::string variant;
  std::string code;
  std::string report;
};
std::vector<failed_variant> failed_correctness(const std::filesystem::path& run_dir, const propose_request& request);

/// In how many iterations before `before` a variant of this name was proposed.
std::uint32_t times_proposed(const std::filesystem::path& run_dir, const std::string& job, const std::string& variant,
                             std::int64_t before);

/// The round's compile tries (one line each: name, methods, what failed), for later rounds.
void write_tries(const std::filesystem::path& run_dir, const std::string& job, std::int64_t iteration,
                 const std::vector<std::string>& tries);

/// Earlier runs' accepted attempts on this kernel, one line each ("" when none).
std::string past_runs_of(const llm::pattern_library& patterns, const std::string& kernel);

} // namespace warpforge::pipeline
