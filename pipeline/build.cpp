#include "pipeline/build.hpp"

#include "config/toml_reader/placed_error.hpp"
#include "sass/disassembler.hpp"
#include "sass/method_catalog.hpp"
#include "sass/signature_table.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>

namespace warpforge::pipeline {

namespace fs = std::filesystem;

namespace {

// The tunables' values as -D defines, in the spec's order (a kernel reads them as macros).
std::vector<gpu::macro_define> defines_of(const config::problem_spec& problem, const config::tunable_point& point) {
  std::vector<gpu::macro_define> defines;
  for (const auto& t : problem.tunables)
    if (auto v = point.find(t.name); v != point.end())
      defines.push_back({t.name, std::to_string(v->second)});
  return defines;
}

bool write_file(const fs::path& file, const std::string& bytes) {
  std::error_code ignored;
  fs::create_directories(file.parent_path(), ignored);
  std::ofstream out{file, std::ios::binary};
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

// The build itself; compile() times it.
built_kernel build(const compile_order& order, const compile_function& compile) {
  built_kernel out;
  out.ref = order.ref;
  out.arch = order.request.arch;
  auto result = compile(order.request);
  const fs::path dir{order.output_dir};
  if (!order.keep_files) {
    out.outcome = result ? vocabulary::branch_outcome::passed : vocabulary::branch_outcome::compile_error;
    out.compile_s = result ? result->compile_s : 0;
    return out;
  }
  if (!result) {
    out.outcome = vocabulary::branch_outcome::compile_error;
    out.log = result.error().log;
    write_file(dir / (order.file_stem + ".log"), out.log);
    return out;
  }
  out.log = result->log;
  out.symbol = result->symbol;
  out.compile_s = result->compile_s;
  out.cache_hit = result->cache_hit;
  const fs::path cubin = dir / (order.file_stem + ".cubin");
  if (!write_file(cubin, std::string{reinterpret_cast<const char*>(result->cubin.data()), result->cubin.size()})) {
    out.outcome = vocabulary::branch_outcome::not_run;
    out.log = "compiled, but the CUBIN could not be written to " + cubin.string();
    return out;
  }
  write_file(dir / (order.file_stem + ".ptx"), result->ptx);
  if (order.ref.branch >= 0) { // a branch; the reference kernel is the problem's own
    auto verdict = check_code(result->ptx, cubin, order.code);
    if (verdict.outcome != vocabulary::branch_outcome::passed) {
      out.outcome = verdict.outcome;
      out.log = verdict.detail + " (checked: " + verdict.checked + ")";
      write_file(dir / (order.file_stem + ".log"), out.log);
      return out;
    }
    out.note = std::move(verdict.note);
  }
  out.outcome = vocabulary::branch_outcome::passed;
  out.cubin_path = cubin.string();
  return out;
}

} // namespace

expected<std::vector<config::resolved_problem>, std::string> resolve_branch(const job_setup& job,
                                                                             const candidate& what) {
  std::vector<config::resolved_problem> out;
  for (const auto& at : job.configs) {
    auto resolved = config::resolve_problem(job.problem, what.point, at.config);
    if (!resolved)
      return unexpected{toml_reader::to_string(resolved.error())};
    // A code variant's own launch replaces the problem's (its proposer validated it against the
    // device's limits); the arguments stay the problem's, so races still share one set of buffers.
    if (what.launch)
      resolved->launch = *what.launch;
    out.push_back(std::move(*resolved));
  }
  return out;
}

compile_order compile_order_for(const job_setup& job, const candidate& what,
                                const config::resolved_problem& resolved, const branch_ref& ref,
                                const std::string& arch, const fs::path& dir) {
  compile_order order;
  order.ref = ref;
  order.request.source = what.source.empty() ? job.kernel_text : what.source;
  order.request.source_name = what.source_name.empty() ? job.problem.kernel.source.filename().string() : what.source_name;
  order.request.entry = resolved.entry; // a tunable in its template arguments at its value
  order.request.arch = arch;
  for (const auto& folder : job.problem.kernel.include_dirs)
    order.request.include_dirs.push_back(folder.string());
  // A model's code stands alone: the baseline's tunables are not its macros unless it declares
  // them in its own defines (a `#define BX 32` of its own would otherwise meet -DBX=16).
  if (what.compiled_defines == define_set::tunables_and_own)
    order.request.defines = defines_of(job.problem, resolved.point);
  for (const auto& [name, value] : what.defines)
    order.request.defines.push_back({name, std::to_string(value)});
  order.request.extra_flags = job.problem.kernel.flags;
  order.output_dir = dir.string();
  order.file_stem = "kernel-" + arch;
  order.code = policy_for(job.problem);
  return order;
}

compile_order reference_order_for(const job_setup& job, const branch_ref& job_ref, const std::string& arch,
                                  const fs::path& dir) {
  compile_order order;
  order.ref = job_ref;
  order.ref.branch = -1;
  order.request.source = job.reference_text;
  order.request.source_name = "reference.cu";
  order.request.entry = job.reference_entry;
  order.request.arch = arch;
  for (const auto& folder : job.problem.kernel.include_dirs) // the reference is of the same project
    order.request.include_dirs.push_back(folder.string());
  order.request.defines = defines_of(job.problem, job.defaults.point);
  order.request.extra_flags = job.reference_flags;
  order.output_dir = dir.string();
  order.file_stem = "reference-" + arch;
  return order;
}

built_kernel compile(const compile_order& order, const compile_function& compile) {
  const auto started = std::chrono::steady_clock::now();
  auto out = build(order, compile);
  out.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

config::tunable_point recorded_defines(const candidate& what) {
  if (what.compiled_defines == define_set::own_only)
    return what.defines;
  auto all = what.point;
  for (const auto& [name, value] : what.defines)
    all[name] = value;
  return all;
}

std::vector<std::string> sass_checkable_methods() {
  std::vector<std::string> ids;
  const auto& table = sass::signature_table::builtin();
  for (const auto& m : sass::method_catalog::builtin().methods())
    if (const auto* signature = table.find(m.signature); signature != nullptr && signature->verify == sass::verify_mode::sass)
      ids.push_back(m.signature);
  return ids;
}

std::string catalog_id(const std::string& method) {
  const auto& table = sass::signature_table::builtin();
  if (table.find(method))
    return method;
  for (const char* axis : {"memory.", "compute.", "latency."})
    if (table.find(axis + method))
      return axis + method;
  return method;
}

sass_order sass_order_for(const built_kernel& kernel, const std::vector<std::string>& methods,
                          const fs::path& listing_path) {
  return {kernel.ref, kernel.cubin_path, methods, listing_path.string(), kernel.symbol};
}

sass_verdict check_sass(const sass_order& order) {
  sass_verdict verdict;
  verdict.ref = order.ref;
  auto listing = sass::disassemble(order.cubin_path);
  if (listing) {
    std::string text;
    for (const auto& kernel : listing->kernels) {
      text += "// " + kernel.name + "\n";
      for (const auto& instruction : kernel.instructions)
        text += "  " + instruction.text + ";\n";
    }
    if (write_file(order.listing_path, text))
      verdict.listing_path = order.listing_path;
  }
  std::vector<std::string> ids;
  for (const auto& m : order.methods)
    ids.push_back(catalog_id(m));
  sass::check_options options;
  if (!order.kernel.empty()) // the entry's own kernel, not the other kernels of its file
    options.kernel = order.kernel;
  const auto checks = sass::check_methods(listing, sass::signature_table::builtin(), ids, options);
  for (std::size_t i = 0; i < checks.size(); ++i) {
    method_presence_entry entry{order.methods[i], checks[i].presence, checks[i].reason, {}, checks[i].match_count};
    if (!checks[i].matches.empty()) {
      const auto& m = checks[i].matches.front();
      char address[24];
      std::snprintf(address, sizeof address, " +0x%04llx: ", static_cast<unsigned long long>(m.address));
      entry.evidence = m.kernel + address + m.text;
    }
    verdict.methods.push_back(std::move(entry));
    if (checks[i].presence == sass::method_presence::absent)
      verdict.absent.push_back(order.methods[i]);
  }
  return verdict;
}

} // namespace warpforge::pipeline
