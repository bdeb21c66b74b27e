#include "llm/reply/ablation_check.hpp"

#include <algorithm>

namespace warpforge::llm {

std::vector<std::string> methods_without_ablation(const proposed_variant& variant) {
  std::vector<std::string> missing;
  if (variant.methods.size() < 2)
    return missing;
  for (const auto& method : variant.methods)
    if (std::none_of(variant.ablations.begin(), variant.ablations.end(),
                     [&](const leave_one_out& a) { return a.without == method; }))
      missing.push_back(method);
  return missing;
}

std::string missing_ablations_note(const proposed_variant& variant) {
  const auto missing = methods_without_ablation(variant);
  if (missing.empty())
    return {};
  if (missing.size() == variant.methods.size())
    return "no ablations: attribution not possible";
  std::string names;
  for (const auto& method : missing)
    names += (names.empty() ? "" : ", ") + method;
  return "no ablation without " + names + ": attribution not possible for " +
         (missing.size() == 1 ? "it" : "them");
}

} // namespace warpforge::llm
