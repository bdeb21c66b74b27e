#pragma once
// The bash and zsh completions and the man page of `warpforge`, written from the command line's
// own definition (command_tree.hpp). The build runs `warpforge --generate-shell-docs <kind> <file>`
// (a hidden option, cmake/WarpforgeShellDocs.cmake) after linking, and the bundle installs the
// results as share/bash-completion/completions/warpforge, share/zsh/site-functions/_warpforge and
// share/man/man1/warpforge.1.

#include "apps/warpforge/cli/command_tree.hpp"
#include "apps/warpforge/cli/exit_codes.hpp"

#include <string>
#include <string_view>

namespace warpforge::cli {

/// The hidden option the build calls; not shown by --help.
inline constexpr std::string_view generate_shell_docs_option = "--generate-shell-docs";

/// A bash script defining _warpforge and `complete -F _warpforge warpforge`: subcommand names at
/// the first word, each subcommand's options after it, the choices of an option that has them,
/// file names otherwise (bash's default).
std::string bash_completion(const command_doc& root);

/// A zsh completion function (#compdef warpforge) for $fpath: the same, with descriptions.
std::string zsh_completion(const command_doc& root);

/// warpforge.1 in man(7) roff: NAME, SYNOPSIS, DESCRIPTION, COMMANDS (each with its arguments and
/// options), EXIT STATUS, FILES, SEE ALSO.
std::string man_page(const command_doc& root);

/// Writes the `kind` ("bash", "zsh" or "man") of `root` to `path` (creating its folder):
/// ok, usage for an unknown kind, failure (named on stderr) when the file cannot be written.
exit_code write_shell_doc(const command_doc& root, std::string_view kind, const std::string& path);

} // namespace warpforge::cli
