#include "apps/warpforge/cli/shell_docs.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>
#include <filesystem>

namespace warpforge::cli {
namespace {

/// A word a shell may hold unquoted: command, option and choice names are all of this shape; a
/// name that is not is left out of the completions rather than quoted wrong.
bool shell_word(std::string_view word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.' || c == ',';
  });
}

std::string join_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words)
    if (shell_word(w))
      out += (out.empty() ? "" : " ") + w;
  return out;
}

/// Options of a command that take a value (their next word is that value, not an option).
std::vector<std::string> valued_names(const command_doc& command) {
  std::vector<std::string> names;
  for (const auto& a : command.arguments)
    if (!a.value_type.empty())
      names.insert(names.end(), a.names.begin(), a.names.end());
  return names;
}

std::vector<std::string> option_names(const command_doc& command) {
  std::vector<std::string> names;
  for (const auto& a : command.arguments)
    names.insert(names.end(), a.names.begin(), a.names.end());
  names.push_back("--help");
  return names;
}

std::vector<std::string> command_names(const command_doc& root) {
  std::vector<std::string> names;
  for (const auto& c : root.subcommands)
    names.push_back(c.name);
  return names;
}

// zsh ------------------------------------------------------------------------------------------

/// Text inside a single-quoted zsh word (a _describe entry's description: shown as it is).
std::string zsh_quoted(std::string_view text) {
  std::string out;
  for (char c : text)
    out += c == '\'' ? std::string{"'\\''"} : std::string(1, c == '\n' ? ' ' : c);
  return out;
}

/// Text inside a single-quoted zsh word that is an _arguments spec, whose [description] and
/// :message: end at an unescaped ], : or [.
std::string zsh_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else if (c == '[' || c == ']' || c == ':' || c == '\\')
      out += std::string{"\\"} + c;
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string zsh_action(const argument_doc& a) {
  if (!a.choices.empty()) {
    std::string action{"("};
    action += join_words(a.choices);
    return action += ')';
  }
  return a.value_type == "TEXT" ? "_files" : " ";
}

std::string zsh_specs(const command_doc& command) {
  std::ostringstream out;
  std::size_t position = 0;
  for (const auto& a : command.arguments) {
    for (const auto& name : a.names) {
      if (!shell_word(name))
        continue;
      out << " \\\n          '" << (a.repeatable ? "*" : "") << name << (a.value_type.empty() ? "" : "=") << "["
          << zsh_text(a.description) << "]";
      if (!a.value_type.empty())
        out << ":" << zsh_text(a.value_type) << ":" << zsh_action(a);
      out << "'";
    }
    if (!a.positional.empty() && shell_word(a.positional)) {
      out << " \\\n          '" << (a.repeatable ? std::string{"*"} : std::to_string(++position)) << ":"
          << zsh_text(a.positional) << ":" << zsh_action(a) << "'";
    }
  }
  return out.str();
}

// roff -----------------------------------------------------------------------------------------

/// Text for a roff line: backslashes and hyphens escaped, and no control character at its start.
std::string roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\''))
    out.insert(0, "\\&");
  return out;
}

/// `text` ending with a full stop, so the notes the man page adds after it read as sentences.
std::string sentence(std::string text) {
  if (!text.empty() && text.back() != '.')
    text += '.';
  return text;
}

std::string synopsis_of(const command_doc& command) {
  std::string out = "\\fBwarpforge " + roff(command.name) + "\\fR";
  for (const auto& a : command.arguments)
    if (!a.positional.empty()) {
      const auto word = "\\fI" + roff(a.positional) + "\\fR" + (a.repeatable ? " ..." : "");
      out += " " + (a.required ? word : "[" + word + "]");
    }
  return out + " [\\fIOPTIONS\\fR]";
}

void man_arguments(std::ostringstream& out, const command_doc& command) {
  for (const auto& a : command.arguments) {
    out << ".TP\n";
    std::string head;
    for (const auto& name : a.names)
      head += (head.empty() ? "" : ", ") + std::string{"\\fB"} + roff(name) + "\\fR";
    if (!a.positional.empty())
      head += (head.empty() ? "" : ", ") + std::string{"\\fI"} + roff(a.positional) + "\\fR";
    if (!a.value_type.empty() && !a.names.empty())
      head += " \\fI" + roff(a.value_type) + "\\fR";
    out << head << '\n' << roff(sentence(a.description));
    if (!a.choices.empty()) {
      out << " (one of:";
      for (const auto& c : a.choices)
        out << ' ' << roff(c);
      out << ')';
    }
    if (a.required)
      out << " Required.";
    if (a.repeatable)
      out << " May be repeated.";
    out << '\n';
  }
}

struct exit_status_doc {
  exit_code code;
  std::string_view meaning;
};

// The meanings of exit_codes.hpp, for the man page's EXIT STATUS.
constexpr exit_status_doc exit_statuses[] = {
  {exit_code::ok, "did what was asked"},
  {exit_code::failure, "ran, and it failed (a campaign failed, a kernel was incorrect, a socket broke, ...)"},
  {exit_code::usage, "bad command line"},
  {exit_code::bad_input, "a spec, file or run directory is malformed or missing"},
  {exit_code::not_available, "the capability is not in this build"},
  {exit_code::no_gpu, "a GPU was required and none is usable"},
  {exit_code::interrupted, "stopped by SIGINT or SIGTERM; what was recorded is kept (warpforge resume)"},
};

} // namespace

std::string bash_completion(const command_doc& root) {
  std::ostringstream out;
  out << "# bash completion for warpforge, generated from its command line definition\n"
         "# (warpforge " << generate_shell_docs_option << " bash FILE). Source it, or install it as\n"
         "# share/bash-completion/completions/warpforge.\n"
         "_warpforge() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"\"\n"
         "  (( COMP_CWORD > 0 )) && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
         "  COMPREPLY=()\n"
         "  if (( COMP_CWORD <= 1 )); then\n"
         "    COMPREPLY=( $(compgen -W \"" << join_words(command_names(root)) << " " << join_words(option_names(root))
      << "\" -- \"$cur\") )\n"
         "    return 0\n"
         "  fi\n"
         "  local options=\"\" valued=\"\"\n"
         "  case \"${COMP_WORDS[1]}\" in\n";
  for (const auto& command : root.subcommands) {
    if (!shell_word(command.name))
      continue;
    out << "    " << command.name << ") options=\"" << join_words(option_names(command)) << "\"; valued=\" "
        << join_words(valued_names(command)) << " \" ;;\n";
  }
  out << "    *) return 0 ;;\n"
         "  esac\n"
         "  case \"${COMP_WORDS[1]} $prev\" in\n";
  for (const auto& command : root.subcommands)
    for (const auto& a : command.arguments)
      if (!a.choices.empty())
        for (const auto& name : a.names)
          if (shell_word(command.name) && shell_word(name))
            out << "    \"" << command.name << ' ' << name << "\") COMPREPLY=( $(compgen -W \""
                << join_words(a.choices) << "\" -- \"$cur\") ); return 0 ;;\n";
  out << "  esac\n"
         "  # The value of an option: bash's default completion (file names).\n"
         "  [[ \"$valued\" == *\" $prev \"* ]] && return 0\n"
         "  if [[ \"$cur\" == -* ]]; then\n"
         "    COMPREPLY=( $(compgen -W \"$options\" -- \"$cur\") )\n"
         "  fi\n"
         "  return 0\n"
         "}\n"
         "complete -o default -F _warpforge warpforge\n";
  return out.str();
}

std::string zsh_completion(const command_doc& root) {
  std::ostringstream out;
  out << "#compdef warpforge\n"
         "# zsh completion for warpforge, generated from its command line definition\n"
         "# (warpforge " << generate_shell_docs_option << " zsh FILE). Install it as _warpforge in a folder of $fpath\n"
         "# (share/zsh/site-functions).\n"
         "_warpforge() {\n"
         "  local curcontext=\"$curcontext\" state line\n"
         "  typeset -A opt_args\n"
         "  local -a commands\n"
         "  commands=(\n";
  for (const auto& command : root.subcommands)
    if (shell_word(command.name))
      out << "    '" << command.name << ":" << zsh_quoted(command.description) << "'\n";
  out << "  )\n"
         "  _arguments -C \\\n"
         "    '(- *)--help[Print the help and exit]'"
      << zsh_specs(root) << " \\\n"
         "    '1: :->command' \\\n"
         "    '*:: :->argument' && return 0\n"
         "  case $state in\n"
         "    command) _describe -t commands 'warpforge command' commands ;;\n"
         "    argument)\n"
         "      case $words[1] in\n";
  for (const auto& command : root.subcommands)
    if (shell_word(command.name))
      out << "        " << command.name << ") _arguments \\\n          '--help[Print the help and exit]'"
          << zsh_specs(command) << " ;;\n";
  out << "      esac ;;\n"
         "  esac\n"
         "}\n"
         "_warpforge \"$@\"\n";
  return out.str();
}

std::string man_page(const command_doc& root) {
  std::ostringstream out;
  out << ".\\\" warpforge.1, generated from the command line definition (warpforge " << generate_shell_docs_option
      << " man FILE).\n"
         ".TH WARPFORGE 1 \"\" \"warpforge\" \"User Commands\"\n"
         ".SH NAME\n"
         "warpforge \\- make CUDA kernels faster and measure GPUs\n"
         ".SH SYNOPSIS\n"
         "\\fBwarpforge\\fR \\fICOMMAND\\fR [\\fIARGUMENTS\\fR] [\\fIOPTIONS\\fR]\n"
         ".br\n"
         "\\fBwarpforge\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR\n"
         ".SH DESCRIPTION\n"
      << roff(sentence(root.description))
      << "\nEach command below is one word after \\fBwarpforge\\fR; \\fBwarpforge \\fICOMMAND\\fB \\-\\-help\\fR shows "
         "its options with their defaults.\n";
  if (!root.arguments.empty()) {
    out << ".SH OPTIONS\n";
    man_arguments(out, root);
  }
  out << ".SH COMMANDS\n";
  for (const auto& command : root.subcommands) {
    out << ".SS " << roff(command.name) << "\n" << synopsis_of(command) << "\n.PP\n" << roff(sentence(command.description)) << "\n";
    man_arguments(out, command);
  }
  out << ".SH EXIT STATUS\n";
  for (const auto& status : exit_statuses)
    out << ".TP\n.B " << to_int(status.code) << '\n' << roff(status.meaning) << '\n';
  out << ".SH FILES\n"
         ".TP\n.I runs/<campaign>\\-YYYYmmdd\\-HHMMSS/\n"
         "A run directory: \\fIwarpforge.db\\fR (the run's store), \\fIlogs/\\fR, \\fIjobs/\\fR, "
         "\\fIartifacts/\\fR and \\fIsummary.md\\fR. \\fBwarpforge runs\\fR lists them and prunes the old "
         "finished ones.\n"
         ".SH SEE ALSO\n"
         "\\fBwarpforge\\-runner\\fR, README.md and docs/ in the warpforge source tree.\n";
  return out.str();
}

exit_code write_shell_doc(const command_doc& root, std::string_view kind, const std::string& path) {
  std::string text;
  if (kind == "bash")
    text = bash_completion(root);
  else if (kind == "zsh")
    text = zsh_completion(root);
  else if (kind == "man")
    text = man_page(root);
  else {
    std::cerr << "warpforge " << generate_shell_docs_option << ": unknown kind '" << kind << "' (bash, zsh or man)\n";
    return exit_code::usage;
  }
  std::error_code ec;
  const std::filesystem::path file{path};
  if (file.has_parent_path())
    std::filesystem::create_directories(file.parent_path(), ec);
  std::ofstream out{file, std::ios::binary | std::ios::trunc};
  out << text;
  out.close();
  if (ec || !out) {
    std::cerr << "warpforge " << generate_shell_docs_option << ": cannot write " << path
              << (ec ? ": " + ec.message() : std::string{}) << '\n';
    return exit_code::failure;
  }
  return exit_code::ok;
}

} // namespace warpforge::cli
