#pragma once
// proposer: turns a diagnosis and the job's memory into K branch candidates. Strategies: tune
// (built-in search tuner), llm, replay. Its reply feeds the compiler.

#include "messages/atoms.hpp"
#include "messages/diagnoser.hpp"
#include "messages/ids.hpp"
#include "messages/outcome.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <string>
#include <vector>

namespace warpforge::messages {

/// A -D define applied when compiling (tunables become defines).
struct define {
  std::string name;
  std::string value;
  friend bool operator==(const define&, const define&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, define& x) {
  return f(caf::meta::type_name("define"), x.name, x.value);
}

/// One kernel variant to try: source and/or defines, and the methods it claims to use.
struct candidate {
  branch_ref ref;
  candidate_kind kind = candidate_kind::branch;
  std::string problem_path;         // the problem spec it solves
  std::string source;               // full kernel source (empty: the problem's own source)
  std::string entry;                // kernel entry point
  std::vector<define> defines;
  std::vector<std::string> methods; // method-catalog ids it claims (e.g. "smem_tiling")
  std::string ablated_method;       // for ablations: the method left out
  std::string rationale;            // why the proposer thinks it helps
  friend bool operator==(const candidate&, const candidate&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate& x) {
  return f(caf::meta::type_name("candidate"), x.ref, x.kind, x.problem_path, x.source, x.entry,
           x.defines, x.methods, x.ablated_method, x.rationale);
}

/// One earlier attempt, shown to the proposer so it does not repeat itself.
struct attempt_record {
  branch_ref ref;
  std::vector<define> defines;
  std::vector<std::string> methods;
  branch_outcome outcome = branch_outcome::not_run;
  double time_s = 0;     // median kernel time in seconds; 0 when not measured
  std::string verdict;   // ACCEPTED / REJECTED / FAILED and why, one line
  friend bool operator==(const attempt_record&, const attempt_record&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, attempt_record& x) {
  return f(caf::meta::type_name("attempt_record"), x.ref, x.defines, x.methods, x.outcome,
           x.time_s, x.verdict);
}

struct propose_request {
  branch_ref where;                      // the iteration to fill
  std::string problem_path;
  candidate current_best;
  diagnosis diagnosis_of_best;
  std::vector<attempt_record> memory;
  std::uint32_t branches = 4;            // K
  friend bool operator==(const propose_request&, const propose_request&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, propose_request& x) {
  return f(caf::meta::type_name("propose_request"), x.where, x.problem_path, x.current_best,
           x.diagnosis_of_best, x.memory, x.branches);
}

struct proposal {
  std::vector<candidate> candidates; // at most K; fewer when the search space is exhausted
  std::vector<candidate> ablations;  // leave-one-out variants for the methods each claims
  std::string note;                  // why fewer than K, or what the strategy did
  friend bool operator==(const proposal&, const proposal&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, proposal& x) {
  return f(caf::meta::type_name("proposal"), x.candidates, x.ablations, x.note);
}

/// proposer: one strategy (tune | llm | replay) behind one interface.
using proposer_actor = caf::typed_actor<
  caf::replies_to<propose_request>::with<proposal>, // K candidates for the next iteration
  status_handler>;

} // namespace warpforge::messages
