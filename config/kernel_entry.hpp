#pragma once
// A problem's kernel entry as `[kernel] entry` writes it, parsed and normalised, so that one
// spelling can be compared with another: the spec's, NVRTC's name expression and a demangled
// symbol from a CUBIN or an observed launch (gpu/compile/entry_name.hpp does those).
//
//   entry := ["::"] name ("::" name)* ["<" arguments ">"] ["(" parameters ")"]
//
//   transposeNaive                  a C++ (or extern "C") __global__ function
//   ns::scale                       in a namespace
//   MatrixMulCUDA<32>               a template instantiation
//   reduce7<int, 256u, true>        normalised to reduce7<int, 256, true>
//   over(float const*, int)         one of several overloads, by its parameter types
//   MatrixMulCUDA<BLOCK>            BLOCK a tunable: its value at each point (at_point)
//
// Normalised (each template argument and parameter): blanks only between two words ("unsigned
// int", "float const*"); integer suffixes dropped (256u is 256, as the demangler writes 256u for
// an unsigned argument); a leading const moved after its type ("const float*" is "float const*",
// the demangler's order); "unsigned" alone is "unsigned int"; "(void)" is "()".
//
// Only letters, digits, '_', ':', '<', '>', ',', '*', '&', '(', ')', '-' and blanks may appear:
// the entry goes into NVRTC's source as a name expression, so nothing else may reach it.
//
//   auto entry = parse_kernel_entry("reduce7<int, 256u, true>");
//   to_string(*entry) == "reduce7<int, 256, true>"

#include "config/expression/expression.hpp"
#include "foundation/expected/expected.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::config {

/// The longest entry accepted, bytes (a typo guard; real entries are tens of bytes).
inline constexpr std::size_t max_entry_bytes = 1024;

struct kernel_entry {
  std::string name;                            // qualified name as written: "ns::k", "::k"
  bool is_template = false;                    // written with <...>
  std::vector<std::string> template_arguments; // normalised, in order
  std::optional<std::vector<std::string>> parameters; // normalised types, when written

  bool operator==(const kernel_entry&) const = default;
};

/// Parses and normalises `text`; the error says what is wrong and where ("column 9: ...").
expected<kernel_entry, std::string> parse_kernel_entry(std::string_view text);

/// The canonical spelling: "reduce7<int, 256, true>", "over(float const*, int)".
std::string to_string(const kernel_entry& entry);

/// The unqualified function name: "k" of "ns::k<4>".
std::string_view base_name(const kernel_entry& entry);

/// A plain identifier: no namespace, no template, no parameters (what an extern "C" function
/// can be called).
bool is_plain_name(const kernel_entry& entry);

/// `entry` with each template argument that is one of `values`' names replaced by its value.
kernel_entry at_point(const kernel_entry& entry, const expression::integer_values& values);

/// parse_kernel_entry, at_point, to_string; `text` unchanged when it does not parse (the spec
/// loader reports that).
std::string entry_at_point(std::string_view text, const expression::integer_values& values);

} // namespace warpforge::config
