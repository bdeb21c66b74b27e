#pragma once
// What `warpforge init` reads in the kernel's own source file (draft_problem.hpp): where the
// kernel is defined, the names of its parameters and template parameters, its body, and the
// integer #defines a tunable could come from. A scan of the text (comments blanked, offsets kept),
// not a C++ parser: what it finds is a proposal, and the drafted spec says how each was found.

#include "foundation/expected/expected.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::observe {

struct kernel_definition {
  std::size_t line = 0;                       // 1-based line of the kernel's name
  std::vector<std::string> param_names;       // in order; "" where a parameter is unnamed
  std::vector<std::string> template_params;   // names in order: "T", "blockSize", "nIsPow2"
  std::size_t body_begin = 0;                 // byte offset of its '{'
  std::size_t body_end = 0;                   // byte offset one past its '}'
};

/// The __global__ definition of `name` (unqualified) with `param_count` parameters in `text`.
/// An error says what was looked for ("no __global__ definition of 'k' with 4 parameters in F").
expected<kernel_definition, std::string> find_kernel_definition(std::string_view text, std::string_view name,
                                                                std::size_t param_count, std::string_view origin);

struct integer_define {
  std::string name;
  std::int64_t value = 0;
  std::size_t line = 0;      // 1-based
  std::size_t offset = 0;    // byte offset of the line's start
  std::size_t length = 0;    // bytes of the line, without its newline
};

/// Every `#define NAME <integer literal>` line of `text` (object-like, no parameters).
std::vector<integer_define> integer_defines(std::string_view text);

/// Whether `name` occurs in `text` as a whole identifier (comments excluded).
bool uses_identifier(std::string_view text, std::string_view name);

/// `text` with every comment replaced by blanks (newlines kept): offsets and lines stay valid.
std::string without_comments(std::string_view text);

/// The 1-based line of byte `offset`.
std::size_t line_of(std::string_view text, std::size_t offset);

} // namespace warpforge::observe
