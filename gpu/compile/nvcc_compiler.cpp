#include "gpu/compile/nvcc_compiler.hpp"

#include "gpu/json_fields.hpp"
#include "gpu/runner/child_process.hpp"
#include "gpu/toolchain.hpp"
#include "foundation/json/writer.hpp"

#include <fstream>

namespace warpforge::gpu {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view program_key_format = "warpforge-program-cache-v1";
constexpr std::string_view program_file = "program";
constexpr std::string_view log_file = "compile.log";
constexpr std::string_view meta_file = "meta.json";
constexpr std::string_view success_outcome = "ok";
constexpr std::string_view output_name = "nvcc-output.txt";

unexpected<compile_failure> failure(compile_failure_kind kind, std::string log) {
  return unexpected(compile_failure{kind, std::move(log)});
}

struct tool_run {
  child_exit exit;
  std::string output; // stdout + stderr
};

// Runs `tool` with `arguments`, its output into `scratch`/nvcc-output.txt; kills it at `timeout`.
expected<tool_run, compile_failure> run_tool(const fs::path& tool,
                                             std::vector<std::string> arguments,
                                             const fs::path& scratch,
                                             std::chrono::milliseconds timeout) {
  spawn_options options;
  options.executable = tool;
  options.arguments = std::move(arguments);
  options.output_file = scratch / output_name;
  auto child = child_process::spawn(options);
  if (!child)
    return failure(compile_failure_kind::internal, child.error().detail);
  auto exit = child->wait_for_exit(timeout);
  if (!exit) {
    child->kill_and_reap();
    return failure(compile_failure_kind::internal,
                   tool.string() + " did not finish within " +
                       std::to_string(timeout.count()) + " ms and was killed");
  }
  auto output = cache_detail::read_file(options.output_file);
  return tool_run{*exit, output ? std::move(*output) : std::string()};
}

struct scratch_guard {
  fs::path path;
  ~scratch_guard() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

std::string program_meta(std::string_view key, std::string_view outcome, double compile_s,
                         const std::string& options) {
  json::writer out;
  out.begin_object()
      .key("format").value(program_key_format)
      .key("key").value(key)
      .key("mode").value("program")
      .key("outcome").value(outcome)
      .key("compile_s").value(compile_s)
      .key("options").value(options)
      .end_object();
  return std::move(out).str();
}

} // namespace

program_compiler::program_compiler(compile_cache cache, fs::path nvcc, std::string version,
                                   std::chrono::milliseconds timeout)
    : cache_(std::move(cache)), nvcc_(std::move(nvcc)), nvcc_version_(std::move(version)),
      timeout_(timeout) {}

expected<program_compiler, compile_failure>
program_compiler::create(compile_cache cache, fs::path nvcc, std::chrono::milliseconds timeout) {
  auto scratch = cache.make_scratch_dir();
  if (!scratch)
    return failure(compile_failure_kind::internal, scratch.error().detail);
  const scratch_guard guard{*scratch};
  auto run = run_tool(nvcc, {"--version"}, *scratch, nvcc_version_timeout);
  if (!run)
    return unexpected(std::move(run).error());
  if (run->exit.exit_code != 0)
    return failure(compile_failure_kind::internal,
                   nvcc.string() + " --version: " + run->exit.to_string() + "\n" + run->output);
  return program_compiler(std::move(cache), std::move(nvcc), std::move(run->output), timeout);
}

expected<program_compiler, compile_failure> program_compiler::from_toolchain(compile_cache cache) {
  const auto report = probe_toolchain();
  const auto& nvcc = report.find(cuda_tool::nvcc);
  if (!nvcc.path)
    return failure(compile_failure_kind::internal,
                   "nvcc not found on PATH or in " + report.cuda_home.string() + "/bin");
  return create(std::move(cache), *nvcc.path);
}

std::string program_compiler::key_for(const compile_request& request) const {
  std::string input;
  cache_detail::add_field(input, program_key_format);
  cache_detail::add_field(input, request.source);
  cache_detail::add_field(input, request.source_name);
  for (const auto& option : canonical_options(request))
    cache_detail::add_field(input, option);
  cache_detail::add_field(input, nvcc_version_);
  cache_detail::add_field(input, request.arch);
  return cache_detail::sha256_hex(input);
}

program_result program_compiler::compile(const compile_request& request) const {
  const std::string key = key_for(request);
  const fs::path entry = cache_.entry_path(key);

  // Hit: meta.json says how it ended.
  if (cache_.contains(key)) {
    auto meta_text = cache_detail::read_file(entry / meta_file);
    auto log = cache_detail::read_file(entry / log_file);
    if (meta_text && log) {
      simdjson::dom::parser parser;
      if (auto meta = parse_object(parser, *meta_text, "meta.json")) {
        json_object_reader reader(*meta, "meta.json");
        std::string format;
        std::string outcome;
        reader.required("format", format);
        reader.required("outcome", outcome);
        if (reader.ok() && format == program_key_format) {
          if (outcome == success_outcome && fs::is_regular_file(entry / program_file))
            return compiled_program{entry / program_file, std::move(*log), 0, true};
          if (auto kind = compile_failure_kind_from_string(outcome))
            return failure(*kind, std::move(*log));
        }
      }
    }
    std::error_code ignored;
    fs::remove_all(entry, ignored); // unreadable entry: rebuild below
  }

  auto scratch = cache_.make_scratch_dir();
  if (!scratch)
    return failure(compile_failure_kind::internal, scratch.error().detail);
  const scratch_guard guard{*scratch};
  const fs::path source = *scratch / (request.source_name.empty() ? "program.cu"
                                                                  : request.source_name);
  const fs::path executable = *scratch / program_file;
  {
    std::ofstream out(source, std::ios::binary);
    out << request.source;
    if (!out.flush())
      return failure(compile_failure_kind::internal, "cannot write " + source.string());
  }
  auto arguments = canonical_options(request);
  arguments.insert(arguments.end(), {"-o", executable.string(), source.string()});

  const auto start = std::chrono::steady_clock::now();
  auto run = run_tool(nvcc_, arguments, *scratch, timeout_);
  const double compile_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!run)
    return unexpected(std::move(run).error()); // internal (spawn failure, timeout): not cached
  const std::string options_text = join_options(canonical_options(request));

  if (run->exit.exit_code != 0) {
    // nvcc exits 1 for errors in the source and for bad options alike: compile_error.
    std::string log = std::move(run->output);
    if (run->exit.signal)
      return failure(compile_failure_kind::internal, log + "nvcc: " + run->exit.to_string());
    (void)cache_.store_files(key, {{std::string(log_file), log},
                                   {std::string(meta_file),
                                    program_meta(key, "compile_error", compile_s, options_text)}});
    return failure(compile_failure_kind::compile_error, std::move(log));
  }

  auto binary = cache_detail::read_file(executable);
  if (!binary)
    return failure(compile_failure_kind::internal,
                   run->output + "nvcc succeeded but " + binary.error().detail);
  auto stored = cache_.store_files(
      key, {{std::string(program_file), std::move(*binary), true},
            {std::string(log_file), run->output},
            {std::string(meta_file), program_meta(key, success_outcome, compile_s, options_text)}});
  if (!stored)
    return failure(compile_failure_kind::internal,
                   run->output + "cannot store the program: " + stored.error().detail);
  return compiled_program{entry / program_file, std::move(run->output), compile_s, false};
}

} // namespace warpforge::gpu
