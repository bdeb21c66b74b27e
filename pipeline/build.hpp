#pragma once
// Building a branch, in the pipeline's steps: resolve its point against the problem, compile it
// (NVRTC through the content cache) into its folder of the run directory, then check in its SASS
// that the methods it claims are really there. Each step is a plain function; the compiler and
// SASS actors are thin shells over compile() and check_sass().
//
//   auto order = compile_order_for(job, branch, ref, "sm_90", dir);   // expected<compile_order>
//   auto kernel = compile(*order, compiler);                          // built_kernel
//   auto verdict = check_sass(sass_order_for(kernel, branch.what.methods, dir));

#include "config/resolved_problem.hpp"
#include "foundation/expected/expected.hpp"
#include "gpu/compile/compile_options.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"
#include "pipeline/branch_ref.hpp"
#include "pipeline/code_check.hpp"
#include "pipeline/job_driver.hpp"
#include "pipeline/job_setup.hpp"
#include "sass/method_check.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace warpforge::pipeline {

/// One kernel to compile for one architecture, and the folder its files go into.
struct compile_order {
  branch_ref ref;                // the branch; branch -1: the job's reference kernel
  gpu::compile_request request;  // source, entry, arch, defines, flags
  std::string output_dir;        // the branch's folder in the run directory
  std::string file_stem;         // "kernel-sm_90" or "reference-sm_90": <stem>.cubin, .log
  bool keep_files = true;        // false: compile ahead into the content cache only (a variant
                                 // likely needed soon), nothing written to the folder
  code_policy code;              // what a branch's PTX/SASS is checked against (code_check.hpp);
                                 // the reference kernel (branch -1) is not checked
  friend bool operator==(const compile_order&, const compile_order&) = default;
};

/// What the compiler made of an order.
struct built_kernel {
  branch_ref ref;
  vocabulary::branch_outcome outcome = vocabulary::branch_outcome::not_run; // passed, compile_error;
                              // a branch's code check: sass_rejected, incorrect (code_check.hpp)
  std::string arch;           // what was compiled for ("sm_90")
  std::string cubin_path;     // the CUBIN in the order's folder (passed only)
  std::string log;            // the compiler's log: the errors, or warnings; a refused branch:
                              // the code check's reason
  double compile_s = 0;       // wall seconds; 0 on a cache hit
  double build_s = 0;         // wall seconds of the whole build: the compile or the cache's copy,
                              // the files written, the code check (its disassembly)
  bool cache_hit = false;
  std::string note;           // passed: what the code check noticed and allowed (lower precision)
  std::string symbol;         // passed: the entry's lowered name in the CUBIN
                              // (gpu::compiled_kernel::symbol; the SASS check looks at it)
  friend bool operator==(const built_kernel&, const built_kernel&) = default;
};

/// Which claimed methods to look for in a CUBIN's machine code.
struct sass_order {
  branch_ref ref;
  std::string cubin_path;
  std::vector<std::string> methods; // as the candidate claims them (tunable method names or
                                    // catalog ids)
  std::string listing_path;         // where the disassembly is written
  std::string kernel;               // the entry's symbol: only its kernel is checked; "" = every
                                    // kernel of the CUBIN
  friend bool operator==(const sass_order&, const sass_order&) = default;
};

/// One claimed method in the SASS.
struct method_presence_entry {
  std::string method;                  // as claimed
  sass::method_presence presence = sass::method_presence::unavailable;
  std::string reason;                  // why not present
  std::string evidence;                // present: the first matching instruction, "kernel +0x0130: LDGSTS ..."
  std::uint64_t matches = 0;           // present: matching instructions in all
  friend bool operator==(const method_presence_entry&, const method_presence_entry&) = default;
};

struct sass_verdict {
  branch_ref ref;
  std::vector<method_presence_entry> methods; // in the claimed order
  std::vector<std::string> absent;            // claimed methods shown absent by a real listing
                                              // (unavailable is never absent)
  std::string listing_path;                   // empty when nothing could be disassembled
  friend bool operator==(const sass_verdict&, const sass_verdict&) = default;
};

/// How a compile is done: gpu::cached_compiler::compile in the product, something slower or
/// failing in tests. Must be thread-safe.
using compile_function = std::function<gpu::compile_result(const gpu::compile_request&)>;

/// The branch's point resolved at each of the job's configurations, in their order (its launch,
/// arguments and defines there): the error names the spec's complaint (a point outside the spec,
/// a violated constraint, an invalid geometry) and, for a problem with [[configs]], the config.
expected<std::vector<config::resolved_problem>, std::string> resolve_branch(const job_setup& job,
                                                                             const candidate& what);

/// The compile order of a branch at its (resolved) point, for `arch`, into `dir`: the same at
/// every configuration (dims are not compiled in). Its defines: the problem's tunables at the
/// point (unless the candidate's code stands alone: define_set::own_only), then its own.
compile_order compile_order_for(const job_setup& job, const candidate& what,
                                const config::resolved_problem& resolved, const branch_ref& ref,
                                const std::string& arch, const std::filesystem::path& dir);

/// The -D defines compile_order_for passes for `what` at its point, by name: what its branch
/// row records (defines_json). A model's variant (define_set::own_only): its own defines only.
config::tunable_point recorded_defines(const candidate& what);

/// The compile order of the job's reference kernel (at the default point) for `arch`.
compile_order reference_order_for(const job_setup& job, const branch_ref& job_ref, const std::string& arch,
                                  const std::filesystem::path& dir);

/// Compiles `order` with `compile` and writes the CUBIN and PTX (or the compile log) into its
/// folder; a branch's code is then checked (check_code): refused, it ends sass_rejected or
/// incorrect with the reason as its log.
built_kernel compile(const compile_order& order, const compile_function& compile);

/// The SASS check of `kernel`'s claims, the listing kept at `listing_path`.
sass_order sass_order_for(const built_kernel& kernel, const std::vector<std::string>& methods,
                          const std::filesystem::path& listing_path);

/// Disassembles the CUBIN (nvdisasm or cuobjdump) and checks each claimed method's signature.
/// Without a disassembler every method is unavailable, never absent.
sass_verdict check_sass(const sass_order& order);

/// Every catalog method the SASS can show (verify = sass), by catalog id: what diagnose looks for.
std::vector<std::string> sass_checkable_methods();

/// The method-catalog id of a claimed method: as written when the signature table knows it,
/// else with the axis prefix the tunable left out ("tiling_smem" is "memory.tiling_smem").
std::string catalog_id(const std::string& method);

} // namespace warpforge::pipeline
