#include "gpu/compile/nvrtc_compiler.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/call_check.hpp"
#include "gpu/compile/cubin_resources.hpp"
#include "gpu/compile/include_check.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

namespace warpforge::gpu {
namespace {

// Real targets (sm_XX) give a CUBIN; compute_XX gives PTX only, with a CUBIN size of 0.
constexpr std::string_view real_arch_prefix = "sm_";

// NVRTC would otherwise search the source's own folder for "..." includes: with a bare source
// name ("variant.cu") that is the process's working folder, whatever it holds (include_check.hpp).
constexpr std::string_view no_source_folder_option = "--no-source-include";

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
  if (auto refusal = include_refusal(request.source))
    return failure(compile_failure_kind::compile_error, request.source_name + ": " + *refusal);
  const auto start = std::chrono::steady_clock::now();

  nvrtcProgram raw = nullptr;
  if (auto r = WARPFORGE_GPU_CALL(nvrtcCreateProgram(&raw, request.source.c_str(),
                                                     request.source_name.c_str(), 0, nullptr,
                                                     nullptr));
      !r)
    return failure(compile_failure_kind::internal, r.error().to_string());
  const program_handle program{raw};

  auto options = canonical_options(request);
  options.emplace_back(no_source_folder_option);
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
      return failure(compile_failure_kind::compile_error, std::move(log));
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
  if (std::find(entries->begin(), entries->end(), request.entry) == entries->end()) {
    std::string names;
    for (const auto& name : *entries)
      names += (names.empty() ? "" : ", ") + name;
    return failure(compile_failure_kind::compile_error,
                   with_line(std::move(log),
                             "entry '" + request.entry + "' not found in the compiled module " +
                                 "(kernels: " + (names.empty() ? "none" : names) +
                                 "); the entry must be an extern \"C\" __global__ function"));
  }

  kernel.log = std::move(log);
  kernel.compile_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return kernel;
}

} // namespace warpforge::gpu
