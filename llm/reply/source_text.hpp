#pragma once
// Reading CUDA C++ source just enough to check a kernel without compiling it: comments and
// literals blanked (so a comment or a string cannot trip a token check), function definitions
// found with their parameter lists and bodies, parameter types normalised. Offsets are kept:
// every view has the source's length, and position_of turns an offset into line and column.
// Not a C++ parser: macros are not expanded, and a definition produced by a macro is not seen.
// Internal to llm/reply (contract.cpp, code_check.cpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm::source_text {

struct comment {
  std::size_t offset = 0; // of its first character ('/')
  std::string text;       // without the // or /* */ delimiters
};

struct views {
  std::string without_comments; // comments blanked to spaces (newlines kept), literals intact
  std::string code_only;        // also the contents of string and char literals blanked
                                // (their quotes kept)
  std::vector<comment> comments;
};

views blank(std::string_view source);

struct position {
  std::uint32_t line = 1;   // 1-based
  std::uint32_t column = 1; // 1-based, in bytes
};

position position_of(std::string_view text, std::size_t offset);
/// "line 12 column 5"
std::string describe(position at);

/// A function definition `... name(params) {body}` with what precedes its name in the same
/// declaration (return type, qualifiers, __launch_bounds__(...)), preprocessor lines excluded.
struct function_definition {
  std::string name;
  std::size_t name_offset = 0;
  std::string prefix;            // the declaration before the name, from the code_only view
  std::string parameters;        // the text between the parentheses, from code_only
  std::size_t body_open = 0;     // offset of '{'
  std::size_t body_close = 0;    // offset of the matching '}' (or the text's size if unmatched)
  bool is_global = false;        // __global__ in the prefix
  bool is_device = false;        // __device__ in the prefix
  bool is_extern_c = false;      // extern "C" in the prefix, or inside an extern "C" { } block
  std::string template_head;     // "template <int BLOCK_SIZE>" when the prefix starts one (blank
                                 // runs written as one space); empty for a non-template
};

/// How far back from a function's name its declaration is looked for, and the longest parameter
/// list read as one (bytes): a longer prefix is cut there and a longer list is not taken for a
/// definition, so that many (or nested) definitions cost linear time and memory, not quadratic.
inline constexpr std::size_t max_declaration_bytes = 4096;

/// The most definitions read from one source; later ones are not seen (a kernel has tens).
inline constexpr std::size_t max_definitions = 1000;

/// Every function definition (the first max_definitions), in one pass: linear in the source's
/// length.
std::vector<function_definition> find_definitions(const views& source);

/// The parameter types of a parameter list, normalised: names, __restrict__ and
/// __grid_constant__ dropped, const before the pointee's type, top-level const dropped,
/// `unsigned` read as `unsigned int`, one space between words and none before * or &.
/// "const float* __restrict__ in" and "float const *in" both give "const float*".
std::vector<std::string> parameter_types(std::string_view parameters);

/// "(const float*, float*, int, int)"
std::string describe_signature(std::string_view name, const std::vector<std::string>& types);

/// Whether `c` may appear in a C identifier.
bool is_identifier_char(char c);

} // namespace warpforge::llm::source_text
