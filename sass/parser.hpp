#pragma once
// Text → disassembly: reads what `nvdisasm -c <cubin>` or `cuobjdump -sass <cubin>` printed.
//
// An instruction is a line holding an address comment and the instruction, in either layout:
//   nvdisasm -c:     /*00c0*/   @P0 LDG.E.128 R4, desc[UR4][R2.64] ;
//   cuobjdump -sass: /*00c0*/   @P0 LDG.E.128 R4, desc[UR4][R2.64] ;   /* 0x0000000402047981 */
// A kernel starts at `.section .text.<name>` (or its `//---- .text.<name> ----` banner) in
// nvdisasm output, at `Function : <name>` in cuobjdump output; `.target sm_90a` and
// `code for sm_90a` give the architecture. Everything else — directives, labels, encoding-only
// lines (/* 0x000fe2... */), banners, fat-binary headers, blank lines — is skipped.

#include "foundation/expected/expected.hpp"
#include "sass/disassembly.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::sass {

/// Why a text is not a disassembly we can read, and where.
struct sass_parse_error {
  std::uint32_t line = 0; // 1-based; 0 = the text as a whole
  std::string message;    // what was found, and what was expected

  /// "line 12: ..." (or the message alone for line 0).
  std::string to_string() const;
};

/// Which tool printed `text`, from its kernel headers; nullopt when it shows neither kind.
std::optional<sass_format> detect_sass_format(std::string_view text);

/// Parses a dump in the given layout. Fails on an instruction outside any kernel (the text is
/// of another layout, or truncated at the top) and on an address with no instruction after it.
expected<disassembly, sass_parse_error> parse_sass(std::string_view text, sass_format format);

/// Parses a dump, detecting the layout first; fails when detect_sass_format cannot tell.
expected<disassembly, sass_parse_error> parse_sass(std::string_view text);

} // namespace warpforge::sass
