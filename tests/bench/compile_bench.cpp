// warpforge-compile-bench: how long the compiler stage takes for the examples/ kernels.
// Not a test: prints a table of NVRTC compile times, cold (the first compile in the process, then
// distinct sources so NVRTC really compiles) and cached (a compile_cache hit), as the median and
// the min–max spread over a few repetitions.
//
//   warpforge-compile-bench [--reps N] [--arch sm_90] [--examples DIR]

#include "gpu/compile/compile_cache.hpp"
#include "gpu/compile/cubin_resources.hpp"
#include "gpu/compile/nvrtc_compiler.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace warpforge::gpu;
namespace fs = std::filesystem;

namespace {

constexpr int default_repetitions = 5;
constexpr double ms_per_s = 1000.0;

// The examples at their default tunables. Defaults come from each example's problem.toml
// (`default = ...`); tunables without one (method switches) take the kernel's #ifndef value.
struct example {
  const char* folder;
  const char* entry;
  std::vector<macro_define> defines;
};

const std::vector<example> examples{
    {"vector_add", "vector_add", {{"BLOCK", "256"}}},
    {"row_reduction", "row_sum", {{"BLOCK", "256"}, {"WARP_SHUFFLE", "0"}}},
    {"transpose",
     "transpose",
     {{"USE_SMEM_TILE", "0"}, {"TILE", "32"}, {"BLOCK_ROWS", "8"}, {"PAD", "0"}}},
};

struct spread {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
};

spread summarize(std::vector<double> seconds) {
  if (seconds.empty())
    return {};
  std::sort(seconds.begin(), seconds.end());
  const std::size_t n = seconds.size();
  const double median = n % 2 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
  return {median * ms_per_s, seconds.front() * ms_per_s, seconds.back() * ms_per_s};
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string defines_text(const std::vector<macro_define>& defines) {
  std::string text;
  for (const auto& d : defines)
    text += (text.empty() ? "" : " ") + d.name + "=" + d.value;
  return text;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int main(int argc, char** argv) {
  int repetitions = default_repetitions;
  std::string arch = "sm_90";
  fs::path examples_dir = fs::path(WARPFORGE_SOURCE_DIR) / "examples";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--reps")
      repetitions = std::max(1, std::atoi(argv[i + 1]));
    else if (flag == "--arch")
      arch = argv[i + 1];
    else if (flag == "--examples")
      examples_dir = argv[i + 1];
  }

  std::string pattern = (fs::temp_directory_path() / "wf-compile-bench-XXXXXX").string();
  const fs::path cache_root = ::mkdtemp(pattern.data());
  cached_compiler cached{compile_cache(cache_root)};

  std::printf("NVRTC %s, arch %s, %d repetitions; times in ms\n", nvrtc_version_text().c_str(),
              arch.c_str(), repetitions);
  std::printf("%-14s %-44s %9s %8s %17s %10s %17s %5s %6s\n", "example", "defines", "first",
              "cold", "cold min-max", "cached", "cached min-max", "regs", "smem");

  bool first_in_process = true;
  int exit_code = 0;
  for (const auto& ex : examples) {
    compile_request request;
    request.source = read_text(examples_dir / ex.folder / "kernel.cu");
    request.source_name = std::string(ex.folder) + "/kernel.cu";
    request.entry = ex.entry;
    request.arch = arch;
    request.defines = ex.defines;

    // Cold: a distinct trailing comment per repetition, so nothing could be reused.
    double first_s = 0;
    std::vector<double> cold;
    std::vector<std::uint8_t> cubin;
    for (int rep = 0; rep <= repetitions; ++rep) {
      auto distinct = request;
      distinct.source += "\n// bench repetition " + std::to_string(rep) + "\n";
      auto result = compile_kernel(distinct);
      if (!result) {
        std::fprintf(stderr, "%s: %s: %s\n", ex.folder,
                     std::string(to_string(result.error().kind)).c_str(),
                     result.error().log.c_str());
        exit_code = 1;
        break;
      }
      if (rep == 0) {
        first_s = result->compile_s; // first in process for the first example
        cubin = result->cubin;
      } else {
        cold.push_back(result->compile_s);
      }
    }
    if (cold.empty())
      continue;

    // Cached: store once, then time whole compile() calls that hit.
    (void)cached.compile(request);
    std::vector<double> hits;
    for (int rep = 0; rep < repetitions; ++rep) {
      const auto start = std::chrono::steady_clock::now();
      auto result = cached.compile(request);
      hits.push_back(seconds_since(start));
      if (!result || !result->cache_hit) {
        std::fprintf(stderr, "%s: expected a cache hit\n", ex.folder);
        exit_code = 1;
      }
    }

    auto resources = read_kernel_resources(cubin, ex.entry);
    const auto c = summarize(cold);
    const auto h = summarize(hits);
    char cold_range[32];
    char hit_range[32];
    std::snprintf(cold_range, sizeof cold_range, "%.2f-%.2f", c.min_ms, c.max_ms);
    std::snprintf(hit_range, sizeof hit_range, "%.3f-%.3f", h.min_ms, h.max_ms);
    char first_text[32];
    std::snprintf(first_text, sizeof first_text, "%.2f%s", first_s * ms_per_s,
                  first_in_process ? "*" : "");
    std::printf("%-14s %-44s %9s %8.2f %17s %10.3f %17s %5u %6llu\n", ex.folder,
                defines_text(ex.defines).c_str(), first_text, c.median_ms, cold_range,
                h.median_ms, hit_range, resources ? resources->registers : 0u,
                resources ? static_cast<unsigned long long>(resources->static_shared_bytes)
                          : 0ull);
    first_in_process = false;
  }
  std::printf("* first NVRTC compile in the process (loads libnvrtc-builtins)\n");
  std::printf("first: the example's first compile; cold: later distinct sources (median); "
              "cached: compile_cache hit, whole call\n");

  std::error_code ignored;
  fs::remove_all(cache_root, ignored);
  return exit_code;
}
