#pragma once
// Ctrl-C and SIGTERM for long-running commands: the first signal sets a flag the command polls,
// so it stops cleanly and keeps what was recorded.

namespace warpforge::cli {

/// Installs the SIGINT/SIGTERM handlers (idempotent).
void watch_for_interrupt();

/// True once SIGINT or SIGTERM arrived.
bool interrupted();

} // namespace warpforge::cli
