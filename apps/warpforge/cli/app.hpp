#pragma once
// The `warpforge` command line: parses with CLI11 and dispatches to one function per command.
// CLI11 is confined to app.cpp (it is slow to compile).

namespace warpforge::cli {

/// Runs the command named in argv; returns the process exit code (exit_codes.hpp).
int run_command_line(int argc, char** argv);

} // namespace warpforge::cli
