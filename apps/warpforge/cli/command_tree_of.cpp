// Reads the CLI11 definition into a command_doc (command_tree.hpp). Beside app.cpp, the only
// other file that includes CLI11: it reads the definition, never parses.

#include "apps/warpforge/cli/command_tree.hpp"

#include <CLI/CLI.hpp>

namespace warpforge::cli {
namespace {

// CLI11 names an IsMember check in the type name: "TEXT:{md,json,csv}".
std::vector<std::string> choices_of(const std::string& type_name) {
  const auto open = type_name.find('{');
  const auto close = type_name.rfind('}');
  std::vector<std::string> choices;
  if (open == std::string::npos || close == std::string::npos || close < open)
    return choices;
  std::string item;
  for (char c : type_name.substr(open + 1, close - open - 1)) {
    if (c == ',') {
      choices.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  if (!item.empty())
    choices.push_back(item);
  return choices;
}

argument_doc describe(const CLI::Option& option) {
  argument_doc doc;
  for (const auto& name : option.get_lnames())
    doc.names.push_back("--" + name);
  for (const auto& name : option.get_snames())
    doc.names.push_back("-" + name);
  if (option.get_positional())
    doc.positional = option.get_name(true, false);
  if (option.get_type_size() != 0) {
    const auto type = option.get_type_name();
    doc.value_type = type.substr(0, type.find(':'));
    doc.choices = choices_of(type);
  }
  doc.description = option.get_description();
  doc.required = option.get_required();
  doc.repeatable = option.get_expected_max() > 1 || option.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
  return doc;
}

} // namespace

command_doc describe_command_line(const CLI::App& app) {
  command_doc doc{app.get_name().empty() ? "warpforge" : app.get_name(), app.get_description(), {}, {}};
  for (const auto* option : app.get_options({})) {
    if (option == app.get_help_ptr() || option->get_group().empty())
      continue; // --help is every command's; an empty group is a hidden option
    doc.arguments.push_back(describe(*option));
  }
  for (const auto* sub : app.get_subcommands({}))
    if (!sub->get_group().empty())
      doc.subcommands.push_back(describe_command_line(*sub));
  return doc;
}

} // namespace warpforge::cli
