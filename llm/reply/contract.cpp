#include "llm/reply/contract.hpp"

#include "config/kernel_entry.hpp"
#include "llm/reply/source_text.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace warpforge::llm {

std::string entry_declaration(const kernel_contract& contract) {
  std::string out;
  if (contract.extern_c)
    out += "extern \"C\" ";
  if (!contract.template_head.empty())
    out += contract.template_head + " ";
  return out + "__global__ void " + source_text::describe_signature(contract.entry, contract.parameter_types);
}

namespace {

using definitions = std::vector<const source_text::function_definition*>;

std::string place_of(std::string_view source, const source_text::function_definition& d) {
  return source_text::describe(source_text::position_of(source, d.name_offset));
}

// The definitions of `from` that `keep` holds for (the caller reports an empty result with
// `from`'s first, so each step's refusal names what it looked at).
template <typename Predicate>
definitions narrowed(const definitions& from, Predicate keep) {
  definitions out;
  std::copy_if(from.begin(), from.end(), std::back_inserter(out), [&](const auto* d) { return keep(*d); });
  return out;
}

} // namespace

expected<kernel_contract, std::string> contract_from_source(std::string_view source,
                                                            std::string_view entry,
                                                            std::vector<std::string> known_methods,
                                                            std::uint32_t max_variants) {
  const auto parsed = config::parse_kernel_entry(entry);
  if (!parsed)
    return unexpected("the entry '" + std::string{entry} + "': " + parsed.error());
  const std::string name{config::base_name(*parsed)};
  const auto views = source_text::blank(source);
  const auto all = source_text::find_definitions(views);
  definitions named;
  for (const auto& d : all)
    if (d.name == name)
      named.push_back(&d);
  if (named.empty())
    return unexpected("kernel source: no definition of the entry '" + name +
                      "' (a __global__ function with a body)");
  const auto global = narrowed(named, [](const auto& d) { return d.is_global; });
  if (global.empty())
    return unexpected("kernel source, " + place_of(source, *named.front()) + ": '" + name +
                      "' is defined but not __global__");
  auto fitting = global;
  if (parsed->parameters) {
    // The entry's types in this file's normal form (kernel_entry writes "float const*").
    std::string list;
    for (const auto& type : *parsed->parameters)
      list += (list.empty() ? "" : ", ") + type;
    const auto wanted = source_text::parameter_types(list);
    fitting = narrowed(fitting, [&](const auto& d) { return source_text::parameter_types(d.parameters) == wanted; });
    if (fitting.empty())
      return unexpected("kernel source: no __global__ '" + name + "' takes " +
                        source_text::describe_signature("", wanted) + ", as the entry '" + std::string{entry} +
                        "' says (the first is at " + place_of(source, *global.front()) + ")");
  }
  const auto same_form = narrowed(fitting, [&](const auto& d) { return d.template_head.empty() != parsed->is_template; });
  if (same_form.empty())
    return unexpected("kernel source, " + place_of(source, *fitting.front()) + ": '" + name + "' is " +
                      (parsed->is_template ? "not a template, but the entry '" + std::string{entry} + "' instantiates one"
                                           : "a template (" + fitting.front()->template_head +
                                               "): name its instantiation in the entry, e.g. " + name + "<...>"));
  if (same_form.size() > 1)
    return unexpected("kernel source: " + std::to_string(same_form.size()) + " __global__ definitions of '" + name +
                      "' (at " + place_of(source, *same_form[0]) + " and " + place_of(source, *same_form[1]) +
                      "): name the one to tune by its parameter types in the entry, e.g. " + name +
                      source_text::describe_signature("", source_text::parameter_types(same_form[0]->parameters)));
  const auto& chosen = *same_form.front();
  kernel_contract out;
  out.entry = name;
  out.parameter_types = source_text::parameter_types(chosen.parameters);
  out.known_methods = std::move(known_methods);
  out.max_variants = max_variants;
  out.extern_c = chosen.is_extern_c;
  out.template_head = chosen.template_head;
  return out;
}

} // namespace warpforge::llm
