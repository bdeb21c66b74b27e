#pragma once
// sass: compiled_candidate → checked_candidate. Disassembles the CUBIN and checks that every
// method the candidate claims shows up in the machine code.

#include "messages/compiler.hpp"
#include "messages/status.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <string>
#include <vector>

namespace warpforge::messages {

enum class method_presence : std::uint8_t {
  present,     // the method's SASS signature matched
  absent,      // disassembled, and the signature did not match
  unavailable, // no disassembler on this host: never reported as passed
};

struct method_check {
  std::string method;                 // method-catalog id
  method_presence presence = method_presence::unavailable;
  std::vector<std::string> evidence;  // matching SASS lines (a few)
  friend bool operator==(const method_check&, const method_check&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, method_check& x) {
  return f(caf::meta::type_name("method_check"), x.method, x.presence, x.evidence);
}

struct checked_candidate {
  compiled_candidate compiled;
  branch_outcome outcome = branch_outcome::not_run; // passed or sass_rejected
  std::vector<method_check> checks;
  std::string sass_path;              // the disassembly, in the run directory
  friend bool operator==(const checked_candidate&, const checked_candidate&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, checked_candidate& x) {
  return f(caf::meta::type_name("checked_candidate"), x.compiled, x.outcome, x.checks,
           x.sass_path);
}

using sass_actor = caf::typed_actor<
  caf::replies_to<compiled_candidate>::with<checked_candidate>, // disassemble and check
  status_handler>;

} // namespace warpforge::messages
