#include "llm/prompt/facts.hpp"

namespace warpforge::llm {

std::string_view to_string(attempt_verdict verdict) {
  switch (verdict) {
  case attempt_verdict::accepted: return "ACCEPTED";
  case attempt_verdict::rejected: return "REJECTED";
  case attempt_verdict::failed: return "FAILED";
  }
  return "UNKNOWN";
}

std::optional<attempt_verdict> attempt_verdict_from_string(std::string_view text) {
  for (auto verdict : all_attempt_verdicts)
    if (to_string(verdict) == text)
      return verdict;
  return std::nullopt;
}

std::string_view to_string(fix_request::kind what) {
  switch (what) {
  case fix_request::kind::compile: return "compile";
  case fix_request::kind::correctness: return "correctness";
  }
  return "unknown";
}

std::optional<fix_request::kind> fix_kind_from_string(std::string_view text) {
  for (auto what : all_fix_kinds)
    if (to_string(what) == text)
      return what;
  return std::nullopt;
}

} // namespace warpforge::llm
