#include "apps/warpforge/cli/interrupt.hpp"

#include <atomic>
#include <csignal>

namespace warpforge::cli {
namespace {

std::atomic<bool> interrupt_seen{false};

extern "C" void on_interrupt(int) {
  interrupt_seen.store(true);
}

} // namespace

void watch_for_interrupt() {
  struct sigaction action{};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool interrupted() {
  return interrupt_seen.load();
}

} // namespace warpforge::cli
