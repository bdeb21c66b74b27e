#include "pipeline/llm/memory.hpp"

#include "pipeline/llm/transcripts.hpp"
#include "pipeline/records.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace warpforge::pipeline {

namespace fs = std::filesystem;

namespace {

using vocabulary::branch_kind;
using vocabulary::branch_outcome;

// The proposals of a job's iterations, each read once.
class proposals {
public:
  proposals(fs::path run_dir, std::string job) : run_dir_(std::move(run_dir)), job_(std::move(job)) {}
  const candidate* branch(std::int64_t iteration, std::size_t k) {
    auto [it, fresh] = read_.try_emplace(iteration);
    if (fresh)
      if (auto p = read_proposal(run_dir_, job_, iteration); p && *p)
        it->second = std::move(**p);
    return k < it->second.candidates.size() ? &it->second.candidates[k] : nullptr;
  }

private:
  fs::path run_dir_;
  std::string job_;
  std::map<std::int64_t, proposal> read_;
};

std::string variant_name(const candidate* c, std::size_t k) {
  if (c == nullptr || c->source_name.empty())
    return "branch " + std::to_string(k + 1);
  return fs::path{c->source_name}.stem().string();
}

// A branch without an election (its phase never completed) is told as failed.
llm::attempt_verdict verdict_of(const attempt& a) {
  switch (a.verdict.value_or(tuning::branch_verdict::failed)) {
    case tuning::branch_verdict::accepted: return llm::attempt_verdict::accepted;
    case tuning::branch_verdict::rejected: return llm::attempt_verdict::rejected;
    case tuning::branch_verdict::failed: return llm::attempt_verdict::failed;
  }
  return llm::attempt_verdict::failed;
}

std::string why_of(const std::string& detail) {
  const auto colon = detail.find(": ");
  const bool verdict_word = detail.starts_with("ACCEPTED") || detail.starts_with("REJECTED") || detail.starts_with("FAILED");
  return verdict_word && colon != std::string::npos ? detail.substr(colon + 2) : detail;
}

fs::path tries_file(const fs::path& run_dir, const std::string& job, std::int64_t iteration) {
  return transcript_folder(run_dir, job, iteration) / "tries.txt";
}

// "name\tmethods\twhat failed" lines of an iteration's compile tries.
void add_tries(std::vector<llm::attempt_fact>& out, const fs::path& file, std::int64_t iteration) {
  std::ifstream in{file};
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields{line};
    std::string name, methods, why;
    if (!std::getline(fields, name, '\t') || !std::getline(fields, methods, '\t') || !std::getline(fields, why))
      continue;
    llm::attempt_fact f;
    f.iteration = iteration;
    f.variant = name;
    std::istringstream ids{methods};
    for (std::string id; std::getline(ids, id, ',');)
      f.methods.push_back(id);
    f.verdict = llm::attempt_verdict::failed;
    f.why = why;
    out.push_back(std::move(f));
  }
}

} // namespace

std::optional<double> baseline_seconds(const std::vector<attempt>& memory) {
  for (const auto& a : memory)
    if (a.kind == branch_kind::baseline && a.median_s)
      return a.median_s;
  return std::nullopt;
}

std::vector<llm::attempt_fact> attempt_facts_of(const fs::path& run_dir, const propose_request& request) {
  std::vector<llm::attempt_fact> out;
  proposals read{run_dir, request.job};
  const auto baseline = baseline_seconds(request.memory);
  std::map<std::int64_t, std::size_t> branches_seen;
  std::map<std::int64_t, std::size_t> accepted_at; // iteration -> its accepted fact
  std::int64_t tries_read = 0;
  for (const auto& a : request.memory) {
    if (a.iteration < 1 || a.kind == branch_kind::baseline)
      continue;
    for (; tries_read < a.iteration; ++tries_read) // an iteration's compile tries come before its branches
      add_tries(out, tries_file(run_dir, request.job, tries_read + 1), tries_read + 1);
    if (a.kind == branch_kind::ablation) {
      if (auto it = accepted_at.find(a.iteration); it != accepted_at.end())
        out[it->second].attribution += (out[it->second].attribution.empty() ? "" : "; ") + std::string{"without "} +
                                       (a.methods.empty() ? "?" : a.methods.front()) + ": " + a.detail;
      continue;
    }
    const auto k = branches_seen[a.iteration]++;
    llm::attempt_fact f;
    f.iteration = a.iteration;
    f.variant = variant_name(read.branch(a.iteration, k), k);
    f.methods = a.methods;
    f.verdict = verdict_of(a);
    f.why = why_of(a.detail);
    if (a.median_s && baseline && *a.median_s > 0)
      f.speedup = *baseline / *a.median_s;
    if (f.verdict == llm::attempt_verdict::accepted)
      accepted_at[a.iteration] = out.size();
    out.push_back(std::move(f));
  }
  for (; tries_read < request.iteration - 1; ++tries_read)
    add_tries(out, tries_file(run_dir, request.job, tries_read + 1), tries_read + 1);
  return out;
}

std::vector<failed_variant> failed_correctness(const fs::path& run_dir, const propose_request& request) {
  std::vector<failed_variant> out;
  proposals read{run_dir, request.job};
  std::size_t k = 0;
  for (const auto& a : request.memory) {
    if (a.iteration != request.iteration - 1 || a.kind != branch_kind::branch)
      continue;
    const auto* c = read.branch(a.iteration, k);
    if (a.outcome == branch_outcome::incorrect && c != nullptr && !c->source.empty())
      out.push_back({variant_name(c, k), c->source, a.detail});
    ++k;
  }
  return out;
}

std::uint32_t times_proposed(const fs::path& run_dir, const std::string& job, const std::string& variant,
                             std::int64_t before) {
  std::uint32_t n = 0;
  for (std::int64_t i = 1; i < before; ++i)
    if (auto p = read_proposal(run_dir, job, i); p && *p)
      for (const auto& c : (*p)->candidates)
        if (fs::path{c.source_name}.stem().string() == variant) {
          ++n;
          break;
        }
  return n;
}

void write_tries(const fs::path& run_dir, const std::string& job, std::int64_t iteration,
                 const std::vector<std::string>& tries) {
  const auto file = tries_file(run_dir, job, iteration);
  std::error_code ignored;
  fs::create_directories(file.parent_path(), ignored);
  std::ofstream out{file};
  for (const auto& line : tries) {
    auto flat = line;
    for (auto& c : flat)
      if (c == '\n' || c == '\r')
        c = ' ';
    out << flat << '\n';
  }
}

std::string past_runs_of(const llm::pattern_library& patterns, const std::string& kernel) {
  std::string out;
  for (const auto& e : patterns.entries())
    if (e.kernel == kernel) {
      char speedup[32];
      std::snprintf(speedup, sizeof speedup, "%.2fx", e.speedup);
      std::string methods;
      for (const auto& m : e.methods)
        methods += (methods.empty() ? "" : " + ") + m;
      out += "- accepted in an earlier run: [" + methods + "] " + speedup + " the baseline: " + e.memo + "\n";
    }
  return out;
}

} // namespace warpforge::pipeline
