#include "deploy/observe/launches/launch_record.hpp"

#include <bit>

namespace warpforge::observe {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// The parameter's bytes as a little-endian unsigned value, when size is 1, 2, 4 or 8 and the
/// hex text holds exactly that many bytes.
std::optional<std::uint64_t> little_endian_bits(const param_bytes& param) {
  if (param.size != 1 && param.size != 2 && param.size != 4 && param.size != 8) return std::nullopt;
  if (param.hex.size() != 2 * static_cast<std::size_t>(param.size)) return std::nullopt;
  std::uint64_t bits = 0;
  for (std::uint32_t i = 0; i < param.size; ++i) {
    int high = hex_digit(param.hex[2 * i]);
    int low = hex_digit(param.hex[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    bits |= static_cast<std::uint64_t>(high * 16 + low) << (8 * i);
  }
  return bits;
}

/// The position of the bracket opening the one that closes at `close` (scanning backwards),
/// or npos. Nested brackets of the same kind are skipped.
std::size_t matching_open(std::string_view text, std::size_t close, char open_char,
                          char close_char) {
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (text[i] == close_char) ++depth;
    if (text[i] == open_char && --depth == 0) return i;
  }
  return std::string_view::npos;
}

/// The part of `name` after its last top-level "::" (brackets of either kind nest).
std::string_view unqualified(std::string_view name) {
  int depth = 0;
  for (std::size_t i = name.size(); i-- > 1;) {
    char c = name[i];
    if (c == ')' || c == '>') ++depth;
    if (c == '(' || c == '<') --depth;
    if (depth == 0 && c == ':' && name[i - 1] == ':') return name.substr(i + 1);
  }
  return name;
}

} // namespace

std::optional<std::uint64_t> as_unsigned(const param_bytes& param) {
  return little_endian_bits(param);
}

std::optional<std::int64_t> as_signed(const param_bytes& param) {
  auto bits = little_endian_bits(param);
  if (!bits) return std::nullopt;
  // Sign-extend from the parameter's width.
  unsigned shift = 64 - 8 * param.size;
  return static_cast<std::int64_t>(*bits << shift) >> shift;
}

std::optional<double> as_float(const param_bytes& param) {
  if (param.size != 4 && param.size != 8) return std::nullopt;
  auto bits = little_endian_bits(param);
  if (!bits) return std::nullopt;
  if (param.size == 4) return std::bit_cast<float>(static_cast<std::uint32_t>(*bits));
  return std::bit_cast<double>(*bits);
}

std::string to_hex(const void* data, std::size_t size) {
  static constexpr char digits[] = "0123456789abcdef";
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::string hex;
  hex.reserve(2 * size);
  for (std::size_t i = 0; i < size; ++i) {
    hex.push_back(digits[bytes[i] >> 4]);
    hex.push_back(digits[bytes[i] & 0xf]);
  }
  return hex;
}

namespace {

/// The text before the parameter list of a signature and after its return type, template
/// arguments kept ("void ns::f<32>(float*)" -> "ns::f<32>"); nullopt without a parameter list.
std::optional<std::string_view> name_with_template(std::string_view demangled) {
  // Scan from the end: "(anonymous namespace)" and template arguments may hold parentheses and
  // spaces, but the parameter list is always the last bracketed group of a signature.
  if (demangled.empty() || demangled.back() != ')') return std::nullopt;
  std::size_t params_open = matching_open(demangled, demangled.size() - 1, '(', ')');
  if (params_open == std::string_view::npos || params_open == 0) return std::nullopt;
  std::string_view head = demangled.substr(0, params_open);
  // The return type (if any) is separated by the last top-level space.
  int depth = 0;
  for (std::size_t i = head.size(); i-- > 0;) {
    char c = head[i];
    if (c == ')' || c == '>') ++depth;
    if (c == '(' || c == '<') --depth;
    if (depth == 0 && c == ' ') return head.substr(i + 1);
  }
  return head;
}

} // namespace

std::string kernel_template_id(std::string_view demangled) {
  return std::string(name_with_template(demangled).value_or(demangled));
}

std::string kernel_base_name(std::string_view demangled) {
  auto head = name_with_template(demangled);
  if (!head) return std::string(demangled);
  if (!head->empty() && head->back() == '>') {
    std::size_t template_open = matching_open(*head, head->size() - 1, '<', '>');
    if (template_open != std::string_view::npos) return std::string(head->substr(0, template_open));
  }
  return std::string(*head);
}

std::optional<bool> changed(const buffer_observation& buffer) {
  if (buffer.before.empty() || buffer.after.empty()) return std::nullopt;
  return buffer.before != buffer.after;
}

bool matches_kernel(const launch_record& record, std::string_view name) {
  if (name.empty()) return true;
  if (name == record.kernel || name == record.demangled) return true;
  const std::string_view signature = record.demangled.empty() ? record.kernel : record.demangled;
  if (name == kernel_template_id(signature)) return true;
  std::string base = kernel_base_name(record.demangled.empty() ? record.kernel : record.demangled);
  return name == base || name == unqualified(base);
}

} // namespace warpforge::observe
