#pragma once
// The command line's own definition as plain data: every subcommand, its options and positional
// arguments, with their help text. Read from the CLI11 definition in app.cpp
// (describe_command_line, command_tree_of.cpp), and written out at build time as the bash and zsh
// completions and the man page (shell_docs.hpp), so they never drift from `warpforge --help`.

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace warpforge::cli {

struct argument_doc {
  std::vector<std::string> names; ///< "--root", "-r"; empty for a positional-only argument
  std::string positional;         ///< its positional name ("run-dir"); empty when it has none
  std::string value_type;         ///< "TEXT", "UINT", ...; empty for a flag (takes no value)
  std::vector<std::string> choices; ///< the values allowed (an IsMember check), else empty
  std::string description;
  bool required = false;
  bool repeatable = false;        ///< takes several values, or may be given several times
};

struct command_doc {
  std::string name;               ///< "warpforge" at the root
  std::string description;
  std::vector<argument_doc> arguments; ///< in definition order; --help is not among them
  std::vector<command_doc> subcommands; ///< hidden ones left out
};

/// The tree below `app` (its visible subcommands and options).
command_doc describe_command_line(const CLI::App& app);

} // namespace warpforge::cli
