#include "sass/parser.hpp"

#include <cctype>
#include <charconv>

namespace warpforge::sass {
namespace {

constexpr std::string_view whitespace = " \t\r\n";
constexpr std::string_view text_section_prefix = ".text.";

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(whitespace);
  if (first == std::string_view::npos)
    return {};
  const auto last = text.find_last_not_of(whitespace);
  return text.substr(first, last - first + 1);
}

bool starts_with_word(std::string_view text, std::string_view word) {
  return text.starts_with(word) &&
         (text.size() == word.size() || whitespace.find(text[word.size()]) != std::string_view::npos);
}

/// The first whitespace-separated word of `text` (already trimmed).
std::string_view first_word(std::string_view text) {
  return text.substr(0, text.find_first_of(whitespace));
}

/// "sm_90a" from "code for sm_90a", ".target sm_90a" or "arch = sm_90a"; empty if none.
std::string_view arch_word(std::string_view text) {
  const auto at = text.find("sm_");
  if (at == std::string_view::npos)
    return {};
  return first_word(text.substr(at));
}

/// Splits operands at commas outside brackets, braces and parentheses.
std::vector<std::string> split_operands(std::string_view text) {
  std::vector<std::string> operands;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '[' || c == '{' || c == '(')
      ++depth;
    else if ((c == ']' || c == '}' || c == ')') && depth > 0)
      --depth;
    else if (c == ',' && depth == 0) {
      auto operand = trim(text.substr(start, i - start));
      if (!operand.empty())
        operands.emplace_back(operand);
      start = i + 1;
    }
  }
  return operands;
}

/// ".L_x_4:": a branch label of nvdisasm's listing (one word ending in ':', not a directive).
bool is_label(std::string_view line) {
  return line.size() > 1 && line.back() == ':' && line.front() == '.' &&
         line.find_first_of(whitespace) == std::string_view::npos &&
         !line.starts_with(".text.");
}

/// What one line of a dump is.
enum class line_kind { instruction, malformed_instruction, other };

struct parsed_line {
  line_kind kind = line_kind::other;
  sass_instruction instruction;
};

/// Reads `/*addr*/ [@pred] OPCODE[.mod...] [operands] ;` (with an optional leading '{' and any
/// trailing /* encoding */ comment). Any other line is `other`.
parsed_line parse_instruction_line(std::string_view line, std::uint32_t line_number) {
  parsed_line result;
  std::string_view rest = trim(line);
  bool braced = false;
  if (rest.starts_with('{')) { // dual-issue group of older architectures
    braced = true;
    rest = trim(rest.substr(1));
  }
  if (!rest.starts_with("/*"))
    return result;
  const auto close = rest.find("*/");
  if (close == std::string_view::npos || close == 2)
    return result;
  const auto digits = rest.substr(2, close - 2);
  std::uint64_t address = 0;
  const auto [end, status] =
      std::from_chars(digits.data(), digits.data() + digits.size(), address, 16);
  if (status != std::errc{} || end != digits.data() + digits.size())
    return result; // "/* 0x000fe2... */": an encoding line, not an address
  rest = trim(rest.substr(close + 2));
  if (const auto comment = rest.find("/*"); comment != std::string_view::npos)
    rest = trim(rest.substr(0, comment));
  if (braced && rest.ends_with('}'))
    rest = trim(rest.substr(0, rest.size() - 1));
  while (rest.ends_with(';'))
    rest = trim(rest.substr(0, rest.size() - 1));

  result.kind = line_kind::malformed_instruction;
  sass_instruction& instruction = result.instruction;
  instruction.address = address;
  instruction.line = line_number;
  instruction.text = std::string{rest};

  std::string_view body = rest;
  if (body.starts_with('@')) {
    const auto predicate = first_word(body);
    if (predicate.size() < 2)
      return result; // a lone '@'
    instruction.predicate = std::string{predicate.substr(1)};
    body = trim(body.substr(predicate.size()));
  }
  const auto mnemonic = first_word(body);
  if (mnemonic.empty())
    return result;
  std::size_t start = 0;
  while (true) {
    const auto dot = mnemonic.find('.', start);
    const auto part = mnemonic.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (start == 0)
      instruction.opcode = std::string{part};
    else if (!part.empty())
      instruction.modifiers.emplace_back(part);
    if (dot == std::string_view::npos)
      break;
    start = dot + 1;
  }
  if (instruction.opcode.empty() ||
      !std::isalpha(static_cast<unsigned char>(instruction.opcode.front())))
    return result;
  instruction.operands = split_operands(trim(body.substr(mnemonic.size())));
  result.kind = line_kind::instruction;
  return result;
}

/// The kernel named by a kernel header of `format`, if `line` (trimmed) is one.
std::optional<std::string_view> kernel_header(std::string_view line, sass_format format) {
  if (format == sass_format::cuobjdump) {
    if (!line.starts_with("Function"))
      return std::nullopt;
    auto rest = trim(line.substr(std::string_view{"Function"}.size()));
    if (!rest.starts_with(':'))
      return std::nullopt;
    return trim(rest.substr(1));
  }
  // nvdisasm: `.section .text.name,"ax",@progbits` or `//---- .text.name ----`.
  std::string_view section;
  if (starts_with_word(line, ".section"))
    section = trim(line.substr(std::string_view{".section"}.size()));
  else if (line.starts_with("//-"))
    section = trim(line.substr(line.find_first_not_of("/-")));
  else
    return std::nullopt;
  if (!section.starts_with(text_section_prefix))
    return std::string_view{}; // another section: no kernel from here on
  section.remove_prefix(text_section_prefix.size());
  return section.substr(0, section.find_first_of(std::string_view{", \t"}));
}

} // namespace

std::string sass_parse_error::to_string() const {
  if (line == 0)
    return message;
  return "line " + std::to_string(line) + ": " + message;
}

std::optional<sass_format> detect_sass_format(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    const auto line = trim(text.substr(start, end - start));
    start = end + 1;
    if (auto name = kernel_header(line, sass_format::cuobjdump); name && !name->empty())
      return sass_format::cuobjdump;
    if (auto name = kernel_header(line, sass_format::nvdisasm); name && !name->empty())
      return sass_format::nvdisasm;
  }
  return std::nullopt;
}

expected<disassembly, sass_parse_error> parse_sass(std::string_view text, sass_format format) {
  disassembly result;
  result.format = format;
  std::string arch;
  sass_kernel* current = nullptr;
  std::vector<std::string> pending_labels; // labels waiting for the instruction they name
  std::uint32_t line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    const auto raw = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    const auto line = trim(raw);
    if (line.empty())
      continue;

    if (auto name = kernel_header(line, format)) {
      if (name->empty()) {
        current = nullptr;
      } else if (current == nullptr || current->name != *name) { // banner, then .section
        result.kernels.push_back(sass_kernel{std::string{*name}, arch, line_number, {}});
        current = &result.kernels.back();
      }
      pending_labels.clear();
      continue;
    }
    if (is_label(line)) {
      if (current != nullptr)
        pending_labels.emplace_back(line.substr(0, line.size() - 1));
      continue;
    }
    if (starts_with_word(line, "code") && line.find(" for ") != std::string_view::npos) {
      arch = std::string{arch_word(line)}; // cuobjdump: "code for sm_90a" starts a new CUBIN
      current = nullptr;
      continue;
    }
    if (starts_with_word(line, ".target") || starts_with_word(line, "arch")) {
      if (auto word = arch_word(line); !word.empty())
        arch = std::string{word};
      if (current != nullptr && current->instructions.empty())
        current->arch = arch;
      continue;
    }

    auto parsed = parse_instruction_line(raw, line_number);
    if (parsed.kind == line_kind::other)
      continue;
    if (parsed.kind == line_kind::malformed_instruction)
      return unexpected(sass_parse_error{
          line_number, "no instruction after the address in '" + std::string{line} + "'"});
    if (current == nullptr)
      return unexpected(sass_parse_error{
          line_number, "instruction '" + parsed.instruction.text + "' outside any kernel (is this " +
                           std::string{to_string(format)} + " output? a kernel starts at " +
                           (format == sass_format::cuobjdump ? "'Function : <name>'"
                                                             : "'.section .text.<name>'") +
                           ")"});
    for (auto& label : pending_labels)
      current->labels.emplace(std::move(label), parsed.instruction.address);
    pending_labels.clear();
    current->instructions.push_back(std::move(parsed.instruction));
  }
  return result;
}

expected<disassembly, sass_parse_error> parse_sass(std::string_view text) {
  const auto format = detect_sass_format(text);
  if (!format)
    return unexpected(sass_parse_error{
        0, "not a SASS listing: found neither nvdisasm's '.section .text.<kernel>' nor "
           "cuobjdump's 'Function : <kernel>'"});
  return parse_sass(text, *format);
}

} // namespace warpforge::sass
