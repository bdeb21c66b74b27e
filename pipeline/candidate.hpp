#pragma once
// A kernel variant to build and measure: what every proposer returns (the built-in tuner today,
// a language model or a replay of an earlier run tomorrow), and what the rest of the pipeline
// carries forward as the branch's identity.

#include "config/resolved_problem.hpp"
#include "vocabulary/branch.hpp"

#include <optional>
#include <string>
#include <vector>

namespace warpforge::pipeline {

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
  friend bool operator==(const candidate&, const candidate&) = default;
};

} // namespace warpforge::pipeline
