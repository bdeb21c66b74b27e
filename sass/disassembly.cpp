#include "sass/disassembly.hpp"

#include "foundation/vocabulary/enum_text.hpp"

namespace warpforge::sass {

constexpr vocabulary::enum_word<sass_format> sass_format_words[] = {
    {sass_format::nvdisasm, "nvdisasm"},
    {sass_format::cuobjdump, "cuobjdump"},
};
static_assert(vocabulary::covers(sass_format_words, all_sass_formats));

std::string_view to_string(sass_format format) { return vocabulary::word_of(sass_format_words, format); }

std::optional<sass_format> sass_format_from_string(std::string_view text) {
  return vocabulary::value_of(sass_format_words, text);
}

std::string sass_instruction::mnemonic() const {
  std::string result = opcode;
  for (const auto& modifier : modifiers) {
    result += '.';
    result += modifier;
  }
  return result;
}

bool sass_instruction::never_executes() const {
  return predicate == "!PT";
}

const sass_kernel* disassembly::find_kernel(std::string_view name) const {
  for (const auto& kernel : kernels)
    if (kernel.name == name)
      return &kernel;
  return nullptr;
}

std::vector<std::string> disassembly::kernel_names() const {
  std::vector<std::string> names;
  names.reserve(kernels.size());
  for (const auto& kernel : kernels)
    names.push_back(kernel.name);
  return names;
}

std::size_t disassembly::instruction_count() const {
  std::size_t count = 0;
  for (const auto& kernel : kernels)
    count += kernel.instructions.size();
  return count;
}

} // namespace warpforge::sass
