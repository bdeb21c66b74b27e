#pragma once
// sass: sass_order -> sass_verdict. Disassembles a built kernel (nvdisasm or cuobjdump) and
// checks that every method the candidate claims shows in its machine code. Without a
// disassembler every method is unavailable, never absent.

#include "messages/atoms.hpp"
#include "messages/ids.hpp"
#include "messages/status.hpp"
#include "pipeline/build.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace warpforge::pipeline {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sass_order& x) {
  return f(caf::meta::type_name("sass_order"), x.ref, x.cubin_path, x.methods, x.listing_path,
           x.kernel);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, method_presence_entry& x) {
  return f(caf::meta::type_name("method_presence_entry"), x.method, x.presence, x.reason, x.evidence,
           x.matches);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, sass_verdict& x) {
  return f(caf::meta::type_name("sass_verdict"), x.ref, x.methods, x.absent, x.listing_path);
}

} // namespace warpforge::pipeline

namespace warpforge::messages {

using sass_actor = caf::typed_actor<
  caf::replies_to<pipeline::sass_order>::with<pipeline::sass_verdict>, // disassemble and check
  caf::reacts_to<stop_atom>,                                           // quit after what is queued
  status_handler>;

} // namespace warpforge::messages
