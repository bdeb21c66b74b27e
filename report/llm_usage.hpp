#pragma once
// What a job's (or the whole campaign's) language-model calls cost, from the store's llm_calls
// rows (docs/run-directory.md): calls, tokens by kind, dollars, seconds, and the calls by purpose
// and by outcome. The summary shows an "LLM" section only where there were calls, so a tuner
// campaign's report is unchanged.
//
//   auto usage = llm_usage_of(*db->load_llm_calls(job_id));
//   campaign_total.add(usage);
//   md << llm_markdown(usage, "###");        // "" when usage.empty()

#include "storage/rows.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::report {

struct llm_usage {
  storage::llm_spend total;                             // sums over the calls (tokens, dollars, seconds)
  std::map<std::string, std::int64_t> calls_by_purpose; // "propose" -> calls, ...
  std::map<std::string, std::int64_t> calls_by_outcome; // "ok", "rate_limited", ... -> calls

  bool empty() const { return total.calls == 0; }
  /// Adds another job's usage (the campaign's is the sum of its jobs').
  void add(const llm_usage& other);
};

/// The usage of these calls (one job's, as database::load_llm_calls returns them).
llm_usage llm_usage_of(const std::vector<storage::llm_call_row>& calls);

/// The "LLM" section under a heading of `level` ("##", "###"): a table of the totals, then the
/// calls by purpose and by outcome. Empty when there were no calls.
std::string llm_markdown(const llm_usage& usage, std::string_view level);

/// The usage as one JSON object: {"calls":..,"failed_calls":..,"input_tokens":..,"output_tokens":..,
/// "cache_read_tokens":..,"cache_write_tokens":..,"cost_usd":..,"seconds":..,"by_purpose":{..},
/// "by_outcome":{..}} (tokens, dollars, seconds; the maps count calls).
std::string llm_json(const llm_usage& usage);

} // namespace warpforge::report
