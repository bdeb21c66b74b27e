#include "report/llm_usage.hpp"
#include "report/markup_text.hpp"

#include "foundation/json/writer.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <utility>

namespace warpforge::report {

namespace {

// "propose 8, reask 2": most calls first, then by name.
std::string counts_text(const std::map<std::string, std::int64_t>& counts) {
  std::vector<std::pair<std::string, std::int64_t>> sorted{counts.begin(), counts.end()};
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (const auto& [name, calls] : sorted)
    text += (text.empty() ? "" : ", ") + (name.empty() ? std::string{"(none)"} : markdown_text(name)) + " " + std::to_string(calls);
  return text;
}

std::string dollars_text(double dollars) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "$%.4f", dollars);
  return buffer;
}

std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f s", seconds);
  return buffer;
}

void write_counts(json::writer& out, std::string_view key, const std::map<std::string, std::int64_t>& counts) {
  out.key(key).begin_object();
  for (const auto& [name, calls] : counts)
    out.key(name).value(calls);
  out.end_object();
}

} // namespace

void llm_usage::add(const llm_usage& other) {
  total += other.total;
  for (const auto& [purpose, calls] : other.calls_by_purpose)
    calls_by_purpose[purpose] += calls;
  for (const auto& [outcome, calls] : other.calls_by_outcome)
    calls_by_outcome[outcome] += calls;
}

llm_usage llm_usage_of(const std::vector<storage::llm_call_row>& calls) {
  llm_usage usage;
  for (const auto& call : calls) {
    usage.total += storage::llm_spend{1,
                                      call.outcome == "ok" ? 0 : 1,
                                      call.input_tokens,
                                      call.output_tokens,
                                      call.cache_read_tokens,
                                      call.cache_write_tokens,
                                      call.cost_usd,
                                      call.seconds};
    ++usage.calls_by_purpose[call.purpose];
    ++usage.calls_by_outcome[call.outcome];
  }
  return usage;
}

std::string llm_markdown(const llm_usage& usage, std::string_view level) {
  if (usage.empty())
    return {};
  const auto& t = usage.total;
  std::ostringstream md;
  md << "\n" << level << " LLM\n\n"
     << "| calls | failed | input tokens | output tokens | cache read tokens | cache write tokens | dollars | seconds |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- |\n"
     << "| " << t.calls << " | " << t.failed_calls << " | " << t.input_tokens << " | " << t.output_tokens << " | "
     << t.cache_read_tokens << " | " << t.cache_write_tokens << " | " << dollars_text(t.cost_usd) << " | "
     << seconds_text(t.seconds) << " |\n\n"
     << "Calls by purpose: " << counts_text(usage.calls_by_purpose) << ".  \n"
     << "Calls by outcome: " << counts_text(usage.calls_by_outcome) << ".\n"
     << "\nSeconds are each call's wall time summed (concurrent calls overlap); dollars come from the "
        "price table (0 for a local or unpriced model).\n";
  return md.str();
}

std::string llm_json(const llm_usage& usage) {
  const auto& t = usage.total;
  json::writer out;
  out.begin_object();
  out.key("calls").value(t.calls);
  out.key("failed_calls").value(t.failed_calls);
  out.key("input_tokens").value(t.input_tokens);
  out.key("output_tokens").value(t.output_tokens);
  out.key("cache_read_tokens").value(t.cache_read_tokens);
  out.key("cache_write_tokens").value(t.cache_write_tokens);
  out.key("cost_usd").value(t.cost_usd);
  out.key("seconds").value(t.seconds);
  write_counts(out, "by_purpose", usage.calls_by_purpose);
  write_counts(out, "by_outcome", usage.calls_by_outcome);
  out.end_object();
  return std::move(out).str();
}

} // namespace warpforge::report
