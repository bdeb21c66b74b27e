#pragma once
// A kernel variant to build and measure: what every proposer returns (the built-in tuner today,
// a language model or a replay of an earlier run tomorrow), and what the rest of the pipeline
// carries forward as the branch's identity.

#include "config/resolved_problem.hpp"
#include "foundation/vocabulary/branch.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::pipeline {

/// Which -D defines a candidate is compiled with (and its branch row records: exactly those).
enum class define_set : std::uint8_t {
  tunables_and_own, // the problem's tunables at `point`, then `defines`: the job's own kernel, the
                    // tuner's points, the kernel files given to bench and diagnose
  own_only,         // `defines` alone: code a model wrote stands on its own (docs/llm.md); its
                    // `point` only resolves the problem's launch and arguments
};
inline constexpr define_set all_define_sets[] = {define_set::tunables_and_own, define_set::own_only};
std::string_view to_string(define_set set);
std::optional<define_set> define_set_from_string(std::string_view text);

/// A branch of the job by its place (the store's key within a job).
struct branch_place {
  std::int64_t iteration = 0; // 1-based
  std::int64_t ordinal = 0;   // within the iteration
  friend bool operator==(const branch_place&, const branch_place&) = default;
};

struct candidate {
  vocabulary::branch_kind kind = vocabulary::branch_kind::branch;
  config::tunable_point point;        // the tunables' values, compiled in as -D defines; a
                                      // proposer that writes code leaves them at the defaults
  std::string source;                 // the kernel's full source; empty: the job's own kernel
  std::string source_name;            // the file name compiler messages use for `source`
                                      // ("mine.cu"); empty: the problem's kernel file's
  config::tunable_point defines;      // further -D defines a code variant brings (its tile sizes):
                                      // compiled in after the tunables, usable in its launch
  std::optional<config::launch_geometry> launch; // a code variant's own launch (register tiling
                                      // and coarsening change it); none: the problem's at `point`
  std::vector<std::string> methods;   // method-catalog ids it claims to use; an ablation: the
                                      // one method it leaves out
  std::string note;                   // the proposer's reason; an ablation: what else changed
  std::vector<candidate> ablations;   // its leave-one-out variants, one per claimed method that
                                      // can be judged alone (measured only if it becomes champion)
  define_set compiled_defines = define_set::tunables_and_own;
  std::optional<branch_place> duplicate_of; // set by the proposer: the same content (content_key.hpp)
                                      // as this earlier branch of the job; recorded not_run with
                                      // the reason, never built or raced
  friend bool operator==(const candidate&, const candidate&) = default;
};

} // namespace warpforge::pipeline
