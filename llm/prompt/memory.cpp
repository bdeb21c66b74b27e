#include "llm/prompt/memory.hpp"

#include "llm/prompt/sections.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

namespace warpforge::llm {

namespace {

/// "memory.a + memory.b" (in claimed order), or "no method claimed".
std::string method_set(const std::vector<std::string>& methods) {
  if (methods.empty())
    return "no method claimed";
  std::string out;
  for (const auto& m : methods)
    out += (out.empty() ? "" : " + ") + m;
  return out;
}

struct tally {
  std::size_t first_seen = 0;
  std::size_t counts[3] = {0, 0, 0}; // by attempt_verdict
  std::optional<double> best;        // best accepted speed-up vs the baseline (ratio)
};

/// "By method set:" then one line per distinct set (methods sorted, so order does not split a
/// set), in first-tried order.
std::string render_tally(const std::vector<attempt_fact>& attempts) {
  std::map<std::string, tally> sets;
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    auto methods = attempts[i].methods;
    std::sort(methods.begin(), methods.end());
    auto [at, inserted] = sets.try_emplace(method_set(methods), tally{i, {0, 0, 0}, std::nullopt});
    auto& t = at->second;
    ++t.counts[static_cast<int>(attempts[i].verdict)];
    if (attempts[i].speedup && attempts[i].verdict == attempt_verdict::accepted)
      t.best = std::max(t.best.value_or(0.0), *attempts[i].speedup);
  }
  std::vector<std::pair<std::string, tally>> ordered(sets.begin(), sets.end());
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.second.first_seen < b.second.first_seen; });
  std::string out = "By method set:\n";
  for (const auto& [name, t] : ordered) {
    std::string line;
    for (auto verdict : all_attempt_verdicts) {
      const auto n = t.counts[static_cast<int>(verdict)];
      if (n == 0)
        continue;
      std::string word{to_string(verdict)};
      std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      line += (line.empty() ? "" : ", ") + std::to_string(n) + " " + word;
      if (verdict == attempt_verdict::accepted && t.best)
        line += " (best " + format_speedup(*t.best) + ")";
    }
    out += "- " + name + ": " + line + "\n";
  }
  return out;
}

} // namespace

std::string render_attempt(const attempt_fact& a) {
  std::string out = a.iteration == 0 ? std::string{"earlier run"} : "iter " + std::to_string(a.iteration);
  out += " " + a.variant + " [" + method_set(a.methods) + "]: " + std::string{to_string(a.verdict)};
  if (a.speedup)
    out += ", " + format_speedup(*a.speedup) + " the baseline";
  if (!a.why.empty())
    out += ". " + a.why;
  out += "\n";
  if (!a.attribution.empty())
    out += "  attribution: " + a.attribution + "\n";
  return out;
}

std::string render_attempts(const std::vector<attempt_fact>& attempts) {
  if (attempts.empty())
    return "none yet\n";
  std::string out;
  for (const auto& a : attempts)
    out += render_attempt(a);
  return out + render_tally(attempts);
}

std::string render_recent_attempts(const std::vector<attempt_fact>& attempts, std::size_t max_chars) {
  if (attempts.empty())
    return "none yet\n";
  std::vector<std::string> kept; // newest first
  std::size_t used = 0;
  for (auto it = attempts.rbegin(); it != attempts.rend(); ++it) {
    auto line = render_attempt(*it);
    if (!kept.empty() && used + line.size() > max_chars)
      break;
    used += line.size();
    kept.push_back(std::move(line));
  }
  std::string out;
  if (kept.size() < attempts.size())
    out.append("(").append(std::to_string(attempts.size() - kept.size())).append(" older attempts left out)\n");
  for (auto it = kept.rbegin(); it != kept.rend(); ++it)
    out += *it;
  return out + render_tally(attempts);
}

} // namespace warpforge::llm
