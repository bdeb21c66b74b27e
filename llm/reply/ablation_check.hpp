#pragma once
// Which leave-one-out versions an accepted variant lacks. A variant claiming two or more methods
// owes one ablation per claimed method (the prompt's rule 9): without them the gain of a winner
// cannot be attributed to its methods. A variant missing some is still accepted (the proposer
// records the note on its branch; the next round asks for the champion's unmeasured methods
// again): a re-ask would resend the whole reply, K complete kernels, for text only the winner's
// ablations use, and a correct, faster variant is worth keeping without its attribution.

#include "llm/reply/envelope.hpp"

#include <string>
#include <vector>

namespace warpforge::llm {

/// The variant's claimed methods that no ablation undoes, in claim order; empty when it claims
/// fewer than two methods (its comparison with the current best measures the one).
std::vector<std::string> methods_without_ablation(const proposed_variant& variant);

/// The note recorded on such a variant's branch: "no ablations: attribution not possible" when
/// none was given, "no ablation without m1, m2: attribution not possible for them" when some were;
/// empty when nothing is missing.
std::string missing_ablations_note(const proposed_variant& variant);

} // namespace warpforge::llm
