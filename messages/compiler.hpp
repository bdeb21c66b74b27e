#pragma once
// compiler: compile_order -> built_kernel. NVRTC (kernel mode) through the content-addressed
// cache, so an identical kernel never compiles twice; the CUBIN (or the compile log) lands in the
// branch's folder. Several compiler actors run side by side (a pool: as many as cores, or the
// campaign's [compiler] workers), each one compile at a time, so the next candidates compile
// while the GPUs time the current ones.

#include "messages/atoms.hpp"
#include "messages/ids.hpp"
#include "messages/status.hpp"
#include "pipeline/build.hpp"

#include <caf/meta/type_name.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

namespace warpforge::gpu {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, macro_define& x) {
  return f(caf::meta::type_name("macro_define"), x.name, x.value);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, compile_request& x) {
  return f(caf::meta::type_name("compile_request"), x.source, x.source_name, x.entry, x.arch,
           x.defines, x.include_dirs, x.extra_flags, x.line_info, x.std);
}

} // namespace warpforge::gpu

namespace warpforge::pipeline {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, code_policy& x) {
  return f(caf::meta::type_name("code_policy"), x.problem_type, x.lower_precision_allowed);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, compile_order& x) {
  return f(caf::meta::type_name("compile_order"), x.ref, x.request, x.output_dir, x.file_stem, x.keep_files,
           x.code);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, built_kernel& x) {
  return f(caf::meta::type_name("built_kernel"), x.ref, x.outcome, x.arch, x.cubin_path, x.log,
           x.compile_s, x.build_s, x.cache_hit, x.note, x.symbol);
}

} // namespace warpforge::pipeline

namespace warpforge::messages {

using compiler_actor = caf::typed_actor<
  caf::replies_to<pipeline::compile_order>::with<pipeline::built_kernel>, // compile (or hit the cache)
  caf::reacts_to<stop_atom>,                                              // quit after what is queued
  status_handler>;

} // namespace warpforge::messages
