#include "deploy/observe/draft/kernel_signature.hpp"

#include "deploy/observe/launches/launch_record.hpp"

#include <array>
#include <utility>

namespace warpforge::observe {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

/// The type without qualifiers that do not change its layout ("const", "volatile").
std::string unqualified_type(std::string_view type) {
  std::string out;
  std::size_t start = 0;
  while (start <= type.size()) {
    std::size_t end = type.find(' ', start);
    if (end == std::string_view::npos) end = type.size();
    std::string_view word = type.substr(start, end - start);
    if (!word.empty() && word != "const" && word != "volatile" && word != "__restrict__" && word != "__restrict") {
      if (!out.empty()) out += ' ';
      out += word;
    }
    start = end + 1;
  }
  return out;
}

expected<kernel_param, std::string> read_param(std::string_view type, std::size_t index) {
  kernel_param param;
  param.type = std::string{type};
  const std::string where = "parameter " + std::to_string(index + 1) + " (" + param.type + ")";
  if (type.find('&') != std::string_view::npos)
    return unexpected{where + ": a reference; a problem spec passes buffers as pointers and scalars by value"};
  std::string_view element = type;
  if (!element.empty() && element.back() == '*') {
    element.remove_suffix(1);
    element = trim(element);
    if (element.find('*') != std::string_view::npos)
      return unexpected{where + ": a pointer to pointers; a problem spec's buffers hold elements"};
    param.kind = param_kind::pointer;
    // "float const*": the demangler writes const after the type it qualifies.
    param.const_pointee = element.ends_with(" const") || element.starts_with("const ");
  }
  auto dtype = dtype_of_cpp_type(unqualified_type(element));
  if (!dtype)
    return unexpected{where + ": '" + unqualified_type(element) +
                      "' is not an element type a problem spec knows (f16 bf16 f32 f64 i8..i64 u8..u64); "
                      "a struct or vector type needs a hand-written spec"};
  param.dtype = *dtype;
  return param;
}

} // namespace

std::vector<std::string> split_top_level(std::string_view list) {
  std::vector<std::string> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= list.size(); ++i) {
    const char c = i < list.size() ? list[i] : ',';
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      if (auto part = trim(list.substr(start, i - start)); !part.empty()) parts.emplace_back(part);
      start = i + 1;
    }
  }
  return parts;
}

std::optional<config::dtype> dtype_of_cpp_type(std::string_view type) {
  using config::dtype;
  static constexpr std::array<std::pair<std::string_view, dtype>, 22> names{{
    {"float", dtype::f32},           {"double", dtype::f64},
    {"__half", dtype::f16},          {"half", dtype::f16},
    {"__nv_bfloat16", dtype::bf16},  {"nv_bfloat16", dtype::bf16},
    {"signed char", dtype::i8},      {"char", dtype::i8},
    {"unsigned char", dtype::u8},    {"bool", dtype::u8},
    {"short", dtype::i16},           {"unsigned short", dtype::u16},
    {"int", dtype::i32},             {"unsigned int", dtype::u32},
    {"unsigned", dtype::u32},        {"long", dtype::i64},
    {"unsigned long", dtype::u64},   {"long long", dtype::i64},
    {"unsigned long long", dtype::u64}, {"long int", dtype::i64},
    {"short int", dtype::i16},       {"long unsigned int", dtype::u64},
  }};
  for (const auto& [name, value] : names)
    if (name == type) return value;
  return std::nullopt;
}

expected<kernel_signature, std::string> parse_kernel_signature(std::string_view demangled) {
  demangled = trim(demangled);
  if (demangled.empty() || demangled.back() != ')')
    return unexpected{"'" + std::string{demangled} +
                      "' has no parameter list (an extern \"C\" kernel's symbol carries no types): give the "
                      "kernel's source with --source so its parameters can be read there, or write the spec by hand"};
  kernel_signature out;
  out.template_id = kernel_template_id(demangled);
  out.base_name = kernel_base_name(demangled);
  if (out.template_id.size() > out.base_name.size() && out.template_id.back() == '>')
    out.template_args = split_top_level(
      std::string_view{out.template_id}.substr(out.base_name.size() + 1, out.template_id.size() - out.base_name.size() - 2));
  // The parameter list: after the template-id, in the last bracketed group.
  const auto id_at = demangled.find(out.template_id);
  const auto open = id_at == std::string_view::npos ? demangled.rfind('(') : id_at + out.template_id.size();
  if (open >= demangled.size() || demangled[open] != '(')
    return unexpected{"cannot find the parameter list of '" + std::string{demangled} + "'"};
  const auto list = demangled.substr(open + 1, demangled.size() - open - 2);
  const auto types = split_top_level(list);
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i] == "void" && types.size() == 1) break;
    auto param = read_param(types[i], i);
    if (!param) return unexpected{param.error()};
    out.params.push_back(std::move(*param));
  }
  return out;
}

} // namespace warpforge::observe
