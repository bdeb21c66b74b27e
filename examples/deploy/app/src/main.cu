// transpose_app: a small CUDA application whose one kernel warpforge observes, tunes and deploys
// back (examples/deploy/). Usage: transpose_app [--check] [--bench]; neither flag = both.
// Exit codes: 0 = ok, 1 = wrong result (--check), 2 = bad usage or a CUDA error.

#include "modes.hpp"

#include <cstdio>
#include <cstring>

namespace {

void print_usage(std::FILE* to) {
  std::fprintf(to,
               "usage: transpose_app [--check] [--bench]\n"
               "  --check  transpose every size once and compare with a CPU transpose\n"
               "  --bench  run the workload, timing each launch: RESULT: kernel_ms=... wall_ms=...\n"
               "  (no flag: both, check first)\n");
}

} // namespace

int main(int argc, char** argv) {
  bool check = false;
  bool bench = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--check") == 0)
      check = true;
    else if (std::strcmp(argv[i], "--bench") == 0)
      bench = true;
    else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      print_usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "transpose_app: unknown argument '%s'\n", argv[i]);
      print_usage(stderr);
      return 2;
    }
  }
  if (!check && !bench)
    check = bench = true;
  if (check && !run_check())
    return 1;
  if (bench)
    run_bench();
  return 0;
}
