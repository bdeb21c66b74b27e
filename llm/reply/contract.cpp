#include "llm/reply/contract.hpp"

#include "llm/reply/source_text.hpp"

#include <utility>

namespace warpforge::llm {

expected<kernel_contract, std::string> contract_from_source(std::string_view source,
                                                            std::string_view entry,
                                                            std::vector<std::string> known_methods,
                                                            std::uint32_t max_variants) {
  const auto views = source_text::blank(source);
  for (const auto& definition : source_text::find_definitions(views)) {
    if (definition.name != entry)
      continue;
    const auto at = source_text::describe(source_text::position_of(source, definition.name_offset));
    if (!definition.is_global)
      return unexpected("kernel source, " + at + ": '" + std::string{entry} +
                        "' is defined but not __global__");
    if (!definition.is_extern_c)
      return unexpected("kernel source, " + at + ": '" + std::string{entry} +
                        "' is not extern \"C\", so its name is mangled and cannot be looked up");
    return kernel_contract{std::string{entry}, source_text::parameter_types(definition.parameters),
                           std::move(known_methods), max_variants};
  }
  return unexpected("kernel source: no definition of the entry '" + std::string{entry} +
                    "' (a __global__ function with a body)");
}

} // namespace warpforge::llm
