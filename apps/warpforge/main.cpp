// warpforge: the coordinator. Everything happens in apps/warpforge/cli/.
#include "apps/warpforge/cli/app.hpp"

#include <csignal>

int main(int argc, char** argv) {
  // `warpforge run ... | head -3`: a reader that goes away must not kill the campaign mid-write
  // (SIGPIPE's default), leaving an empty store. Ignored, a write to the closed pipe fails with
  // EPIPE instead: std::cout goes quiet and the work runs to its end. Sockets see EPIPE too.
  // Children get SIGPIPE's default back (gpu::child_process).
  std::signal(SIGPIPE, SIG_IGN);
  return warpforge::cli::run_command_line(argc, argv);
}
