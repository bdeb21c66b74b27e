// `warpforge dashboard [run-dir | endpoint] [--listen 127.0.0.1:8757]`: serves a page that
// shows a campaign live (jobs, speed-up over iterations, roofline position, GPUs and their busy
// share, recent events, failures), or a finished one from its run directory. The bridge reads the
// store and follows the feed; the server pushes each snapshot to every open page over a
// WebSocket. Runs until Ctrl-C.

#include "apps/warpforge/cli/commands.hpp"

#include "apps/warpforge/cli/interrupt.hpp"
#include "apps/warpforge/cli/user_errors.hpp"
#include "feed/dashboard/bridge.hpp"
#include "feed/dashboard/http_server.hpp"
#include "feed/dashboard/page.hpp"

#include <chrono>
#include <iostream>
#include <thread>

namespace warpforge::cli {
namespace {

// How often the command looks at the interrupt flag.
constexpr std::chrono::milliseconds interrupt_poll{200};

} // namespace

exit_code dashboard(const dashboard_options& options) {
  auto listen = dashboard::parse_listen_address(options.listen, options.allow_remote);
  if (!listen) {
    std::cerr << "warpforge dashboard: --listen " << options.listen << ": " << user_message(listen.error()) << '\n';
    return exit_code::usage;
  }
  auto server = dashboard::http_server::start({*listen, std::string{dashboard::page_html()}});
  if (!server) {
    std::cerr << "warpforge dashboard: " << user_message(server.error()) << '\n';
    return exit_code::failure;
  }
  dashboard::bridge_options source_options;
  source_options.run_dir = options.run_dir;
  source_options.endpoint = options.endpoint;
  source_options.replay_endpoint = options.replay_endpoint;
  auto source = dashboard::bridge::start(std::move(source_options), [&server](std::string snapshot) {
    server->publish(std::move(snapshot));
  });
  if (!source) {
    std::cerr << "warpforge dashboard: " << user_message(source.error()) << '\n';
    return exit_code::bad_input;
  }
  // stdout, one line: scripts (and the tests) read the URL from it.
  std::cout << "warpforge dashboard: " << server->url() << "  ("
            << (options.run_dir.empty() ? "" : "run directory " + options.run_dir + ", then ") << "feed "
            << source->endpoint() << ")" << std::endl;
  watch_for_interrupt();
  while (!interrupted())
    std::this_thread::sleep_for(interrupt_poll);
  return exit_code::ok;
}

} // namespace warpforge::cli
