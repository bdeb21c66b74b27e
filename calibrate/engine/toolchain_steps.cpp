#include "calibrate/engine/toolchain_steps.hpp"

#include "calibrate/engine/run_files.hpp"
#include "sass/disassembler.hpp"

#include <cstdio>
#include <unistd.h>

namespace warpforge::calibrate {

namespace fs = std::filesystem;

std::string listing_text(const sass::disassembly& listing) {
  std::string text;
  for (const auto& kernel : listing.kernels) {
    text += "\t\tFunction : " + kernel.name + (kernel.arch.empty() ? "" : " (" + kernel.arch + ")") + "\n";
    for (const auto& instruction : kernel.instructions) {
      char address[32];
      std::snprintf(address, sizeof address, "/*%04llx*/", static_cast<unsigned long long>(instruction.address));
      text += "        " + std::string{address} + "  " + instruction.text + " ;\n";
    }
  }
  return text;
}

toolchain_steps::toolchain_steps() {
  auto compiler = gpu::program_compiler::from_toolchain(gpu::compile_cache{gpu::default_cache_root()});
  if (compiler)
    compiler_.emplace(std::move(*compiler));
  else
    no_compiler_ = compiler.error().log;
}

expected<built_benchmark, build_failure> toolchain_steps::build(const benchmark& bench, const std::string& arch) {
  if (!compiler_)
    return unexpected{build_failure{build_failure_kind::toolchain_missing, "nvcc is needed: " + no_compiler_, ""}};
  gpu::compile_request request;
  request.source = std::string{bench.source};
  request.source_name = fs::path{bench.file}.filename().string();
  request.arch = arch;
  auto built = compiler_->compile(request);
  if (!built) {
    const auto kind = built.error().kind == gpu::compile_failure_kind::internal ? build_failure_kind::internal
                                                                                 : build_failure_kind::compile_error;
    return unexpected{build_failure{kind, "nvcc " + std::string{gpu::to_string(built.error().kind)} + " (" + arch + ")",
                                    built.error().log}};
  }
  return built_benchmark{built->executable, arch, built->cache_hit, built->log};
}

expected<std::string, std::string> toolchain_steps::disassemble(const built_benchmark& built) {
  auto found = sass::find_disassembler();
  if (!found)
    return unexpected{found.error().to_string()};
  // nvdisasm reads a bare CUBIN only; the executable's fat binary needs cuobjdump, which the
  // toolkit ships in the same folder.
  sass::disassembler tool{found->tool, sass::sass_format::cuobjdump};
  if (found->format == sass::sass_format::nvdisasm)
    tool.tool = found->tool.parent_path() / "cuobjdump";
  if (::access(tool.tool.c_str(), X_OK) != 0)
    return unexpected{"no cuobjdump beside " + found->tool.string()};
  auto listing = sass::disassemble(tool, built.executable);
  if (!listing)
    return unexpected{listing.error().to_string()};
  return listing_text(*listing);
}

std::vector<trial_output> trial_outputs(const std::vector<gpu::program_trial>& trials, const fs::path& log_dir) {
  std::vector<trial_output> outputs;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const auto& trial = trials[i];
    auto output = read_whole_file(log_dir / ("trial-" + std::to_string(i + 1) + ".log"));
    outputs.push_back(trial_output{trial.outcome, output.value_or(trial.output_tail), trial.detail, trial.wall_s});
  }
  return outputs;
}

} // namespace warpforge::calibrate
