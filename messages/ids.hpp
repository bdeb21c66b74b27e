#pragma once
// Which branch a message is about: pipeline::branch_ref, given an inspect so it crosses actors
// and hosts.

#include "pipeline/branch_ref.hpp"

#include <caf/meta/type_name.hpp>

namespace warpforge::pipeline {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, branch_ref& x) {
  return f(caf::meta::type_name("branch_ref"), x.campaign, x.job, x.iteration, x.branch);
}

} // namespace warpforge::pipeline
