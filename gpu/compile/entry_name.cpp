#include "gpu/compile/entry_name.hpp"

#include "gpu/compile/cubin_resources.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

namespace warpforge::gpu {
namespace {

// Template functions' demangled names start with their return type; a kernel's is void.
constexpr std::string_view kernel_return_type = "void ";

std::string joined(const std::vector<std::string>& items) {
  return fmt::format("{}", fmt::join(items, ", "));
}

} // namespace

std::string name_expression(const config::kernel_entry& entry) {
  if (!entry.parameters)
    return to_string(entry);
  config::kernel_entry function = entry;
  function.parameters.reset();
  return "static_cast<void(*)(" + joined(*entry.parameters) + ")>(" + to_string(function) + ")";
}

std::string demangled(std::string_view symbol) {
  if (!symbol.starts_with("_Z"))
    return std::string{symbol};
  const std::string name{symbol};
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> text{abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                         &std::free};
  return status == 0 && text ? std::string{text.get()} : name;
}

std::optional<config::kernel_entry> entry_of_symbol(std::string_view symbol) {
  std::string text = demangled(symbol);
  std::string_view view = text;
  if (view.starts_with(kernel_return_type))
    view.remove_prefix(kernel_return_type.size());
  auto entry = config::parse_kernel_entry(view);
  if (!entry)
    return std::nullopt;
  return std::move(*entry);
}

bool names_kernel(const config::kernel_entry& entry, std::string_view symbol) {
  const auto found = entry_of_symbol(symbol);
  if (!found)
    return false;
  // "::k" and "k" name the same function of the global namespace.
  auto unrooted = [](std::string_view name) { return name.starts_with("::") ? name.substr(2) : name; };
  if (unrooted(found->name) != unrooted(entry.name) || found->is_template != entry.is_template ||
      found->template_arguments != entry.template_arguments)
    return false;
  return !entry.parameters || !found->parameters || *entry.parameters == *found->parameters;
}

expected<std::string, std::string> entry_symbol(std::span<const std::string> kernels, std::string_view entry) {
  if (std::find(kernels.begin(), kernels.end(), entry) != kernels.end())
    return std::string{entry};
  auto parsed = config::parse_kernel_entry(entry);
  if (!parsed)
    return unexpected("entry '" + std::string{entry} + "': " + parsed.error());
  std::vector<std::string> matches;
  for (const auto& kernel : kernels)
    if (names_kernel(*parsed, kernel))
      matches.push_back(kernel);
  if (matches.size() == 1)
    return matches.front();
  std::string listed;
  for (const auto& kernel : (matches.empty() ? std::vector<std::string>(kernels.begin(), kernels.end()) : matches))
    listed += (listed.empty() ? "" : ", ") + demangled(kernel);
  if (matches.empty())
    return unexpected("entry '" + std::string{entry} + "' is not a kernel of the module (kernels: " +
                      (listed.empty() ? "none" : listed) + ")");
  return unexpected("entry '" + std::string{entry} + "' names " + std::to_string(matches.size()) +
                    " kernels of the module (" + listed +
                    "); give its template arguments or parameter types to pick one");
}

expected<std::string, std::string> entry_symbol_in_cubin(std::span<const std::uint8_t> cubin, std::string_view entry) {
  auto kernels = kernel_entries(cubin);
  if (!kernels)
    return unexpected("cannot read the CUBIN's kernels: " + kernels.error().detail);
  return entry_symbol(*kernels, entry);
}

} // namespace warpforge::gpu
