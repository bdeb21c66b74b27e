#include "gpu/compile/nvrtc_compiler.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/call_check.hpp"
#include "gpu/compile/cubin_resources.hpp"
#include "gpu/compile/entry_name.hpp"
#include "gpu/compile/include_check.hpp"
#include "gpu/toolchain.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

namespace warpforge::gpu {
namespace {

// Real targets (sm_XX) give a CUBIN; compute_XX gives PTX only, with a CUBIN size of 0.
constexpr std::string_view real_arch_prefix = "sm_";

unexpected<compile_failure> failure(compile_failure_kind kind, std::string log) {
  return unexpected(compile_failure{kind, std::move(log)});
}

struct program_deleter {
  void operator()(nvrtcProgram program) const {
    // Nothing useful to do if destroying fails; the check keeps the call visible.
    (void)WARPFORGE_GPU_CALL(nvrtcDestroyProgram(&program));
  }
};
using program_handle = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, program_deleter>;

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  if (!WARPFORGE_GPU_CALL(nvrtcGetProgramLogSize(program, &size)) || size == 0)
    return {};
  std::string log(size, '\0');
  if (!WARPFORGE_GPU_CALL(nvrtcGetProgramLog(program, log.data())))
    return {};
  while (!log.empty() && log.back() == '\0')
    log.pop_back();
  return log;
}

std::string with_line(std::string log, std::string_view line) {
  if (!log.empty() && log.back() != '\n')
    log += '\n';
  log += line;
  return log;
}

// NVRTC places the name expressions in a pseudo-file of this name; its errors there mean the
// entry names nothing it can instantiate.
constexpr std::string_view name_map_file = "__nv_name_map";
constexpr std::string_view instantiation_context = "detected during"; // "... instantiation of"

// The compile log, with a line saying what the entry has to do with it when NVRTC failed on it.
std::string entry_failure_log(std::string log, const compile_request& request, const std::string& expression) {
  if (log.find(name_map_file) != std::string::npos)
    return with_line(std::move(log), "entry '" + request.entry + "' names no __global__ function of " +
                                       request.source_name + " that NVRTC can find or instantiate (its name " +
                                       "expression: " + expression + ")");
  if (request.entry.find('<') != std::string::npos && log.find(instantiation_context) != std::string::npos)
    return with_line(std::move(log), "while instantiating entry '" + request.entry + "' of " + request.source_name);
  return log;
}

// The spelling of `symbol` to suggest for the entry: without parameters when that finds it.
std::string suggested_entry(std::span<const std::string> kernels, const std::string& symbol) {
  auto entry = entry_of_symbol(symbol);
  if (!entry)
    return symbol;
  auto without_parameters = *entry;
  without_parameters.parameters.reset();
  const auto shorter = config::to_string(without_parameters);
  if (auto found = entry_symbol(kernels, shorter); found && *found == symbol)
    return shorter;
  return config::to_string(*entry);
}

// Checks that the CUBIN holds NVRTC's `symbol` as a kernel and that entry_symbol finds it from
// the entry: what every later step (runner, SASS check, ncu) does. The reason when not.
std::optional<std::string> entry_refusal(std::span<const std::string> kernels, const compile_request& request,
                                         const std::string& symbol) {
  std::string listed;
  for (const auto& kernel : kernels)
    listed += (listed.empty() ? "" : ", ") + demangled(kernel);
  if (std::find(kernels.begin(), kernels.end(), symbol) == kernels.end())
    return "entry '" + request.entry + "' is " + demangled(symbol) + ", not a __global__ function of " +
           request.source_name + " (kernels: " + (listed.empty() ? "none" : listed) + ")";
  const auto found = entry_symbol(kernels, request.entry);
  if (found && *found == symbol)
    return std::nullopt;
  return "entry '" + request.entry + "' compiles to " + demangled(symbol) +
         ", which the runner cannot find from the entry as written (" +
         (found ? "it names " + demangled(*found) : found.error()) + "); write entry = \"" +
         suggested_entry(kernels, symbol) + "\"";
}

// -I<CUDA home>/include and -I<CUDA home>/include/cccl, those that exist; asked once.
const std::vector<std::string>& toolkit_include_options() {
  static const std::vector<std::string> options = [] {
    const auto env = toolchain_environment::from_process();
    const std::filesystem::path home = env.cuda_home && !env.cuda_home->empty() ? std::filesystem::path{*env.cuda_home}
                                                                              : default_cuda_home;
    std::vector<std::string> out;
    for (const auto& folder : {home / "include", home / "include" / "cccl"}) {
      std::error_code ec;
      if (std::filesystem::is_directory(folder, ec))
        out.push_back("-I" + folder.string());
    }
    return out;
  }();
  return options;
}

} // namespace

constexpr vocabulary::enum_word<compile_failure_kind> compile_failure_kind_words[] = {
    {compile_failure_kind::compile_error, "compile_error"},
    {compile_failure_kind::invalid_option, "invalid_option"},
    {compile_failure_kind::internal, "internal"},
};
static_assert(vocabulary::covers(compile_failure_kind_words, all_compile_failure_kinds));

std::string_view to_string(compile_failure_kind kind) { return vocabulary::word_of(compile_failure_kind_words, kind); }

std::optional<compile_failure_kind> compile_failure_kind_from_string(std::string_view text) {
  return vocabulary::value_of(compile_failure_kind_words, text);
}

std::vector<std::string> nvrtc_options(const compile_request& request) {
  auto options = canonical_options(request);
  const auto& toolkit = toolkit_include_options();
  options.insert(options.end(), toolkit.begin(), toolkit.end());
  return options;
}

std::string nvrtc_version_text() {
  int major = 0;
  int minor = 0;
  if (!WARPFORGE_GPU_CALL(nvrtcVersion(&major, &minor)))
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

compile_result compile_kernel(const compile_request& request) {
  if (!request.arch.starts_with(real_arch_prefix))
    return failure(compile_failure_kind::invalid_option,
                   "arch '" + request.arch + "' is not a real target: a CUBIN needs sm_XX");
  const auto entry = config::parse_kernel_entry(request.entry);
  if (!entry)
    return failure(compile_failure_kind::compile_error,
                   request.source_name + ": entry '" + request.entry + "': " + entry.error());
  if (auto refusal = include_refusal(request.source))
    return failure(compile_failure_kind::compile_error, request.source_name + ": " + *refusal);
  const auto options = nvrtc_options(request);
  // NVRTC looks for a "..." include in the including file's own folder first (for the source: the
  // working folder), then in the -I folders; every file it would read must lie in the latter.
  if (auto walk = walk_included_headers(request.source, request.source_name, allowed_include_roots(options).folders,
                                        request.include_dirs);
      walk.refusal)
    return failure(compile_failure_kind::compile_error, request.source_name + ": " + *walk.refusal);
  const auto start = std::chrono::steady_clock::now();

  nvrtcProgram raw = nullptr;
  if (auto r = WARPFORGE_GPU_CALL(nvrtcCreateProgram(&raw, request.source.c_str(),
                                                     request.source_name.c_str(), 0, nullptr,
                                                     nullptr));
      !r)
    return failure(compile_failure_kind::internal, r.error().to_string());
  const program_handle program{raw};
  const std::string expression = name_expression(*entry);
  if (auto r = WARPFORGE_GPU_CALL(nvrtcAddNameExpression(program.get(), expression.c_str())); !r)
    return failure(compile_failure_kind::internal, r.error().to_string());

  std::vector<const char*> option_pointers;
  option_pointers.reserve(options.size());
  for (const auto& option : options)
    option_pointers.push_back(option.c_str());

  const auto compiled = WARPFORGE_GPU_CALL(nvrtcCompileProgram(
      program.get(), static_cast<int>(option_pointers.size()), option_pointers.data()));
  std::string log = program_log(program.get());
  // Defence in depth: a file the log names that include_refusal would not allow means the check
  // was bypassed; the log (which quotes that file's lines) goes nowhere.
  if (auto refusal = log_file_refusal(log, request.source_name, allowed_include_roots(options)))
    return failure(compile_failure_kind::compile_error, request.source_name + ": " + *refusal);
  if (!compiled) {
    switch (static_cast<nvrtcResult>(compiled.error().code)) {
    case NVRTC_ERROR_COMPILATION:
      return failure(compile_failure_kind::compile_error, entry_failure_log(std::move(log), request, expression));
    case NVRTC_ERROR_INVALID_OPTION:
      return failure(compile_failure_kind::invalid_option,
                     with_line(std::move(log), compiled.error().to_string() + " (options: " +
                                                   join_options(options) + ")"));
    default:
      return failure(compile_failure_kind::internal,
                     with_line(std::move(log), compiled.error().to_string()));
    }
  }

  compiled_kernel kernel;
  kernel.entry = request.entry;
  const char* lowered = nullptr;
  if (auto r = WARPFORGE_GPU_CALL(nvrtcGetLoweredName(program.get(), expression.c_str(), &lowered)); !r || !lowered)
    return failure(compile_failure_kind::internal,
                   with_line(log, r ? "NVRTC gave no lowered name for " + expression : r.error().to_string()));
  kernel.symbol = lowered;
  kernel.arch = request.arch;

  std::size_t ptx_size = 0; // counts the trailing NUL
  if (auto r = WARPFORGE_GPU_CALL(nvrtcGetPTXSize(program.get(), &ptx_size)); !r)
    return failure(compile_failure_kind::internal, with_line(log, r.error().to_string()));
  kernel.ptx.assign(ptx_size, '\0');
  if (auto r = WARPFORGE_GPU_CALL(nvrtcGetPTX(program.get(), kernel.ptx.data())); !r)
    return failure(compile_failure_kind::internal, with_line(log, r.error().to_string()));
  while (!kernel.ptx.empty() && kernel.ptx.back() == '\0')
    kernel.ptx.pop_back();

  std::size_t cubin_size = 0;
  if (auto r = WARPFORGE_GPU_CALL(nvrtcGetCUBINSize(program.get(), &cubin_size)); !r)
    return failure(compile_failure_kind::internal, with_line(log, r.error().to_string()));
  if (cubin_size == 0)
    return failure(compile_failure_kind::internal,
                   with_line(log, "NVRTC produced no CUBIN for arch '" + request.arch + "'"));
  kernel.cubin.resize(cubin_size);
  if (auto r = WARPFORGE_GPU_CALL(
          nvrtcGetCUBIN(program.get(), reinterpret_cast<char*>(kernel.cubin.data())));
      !r)
    return failure(compile_failure_kind::internal, with_line(log, r.error().to_string()));

  auto entries = kernel_entries(kernel.cubin);
  if (!entries)
    return failure(compile_failure_kind::internal,
                   with_line(log, "cannot read the compiled CUBIN: " + entries.error().detail));
  if (auto refusal = entry_refusal(*entries, request, kernel.symbol))
    return failure(compile_failure_kind::compile_error, with_line(std::move(log), *refusal));

  kernel.log = std::move(log);
  kernel.compile_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return kernel;
}

} // namespace warpforge::gpu
