#pragma once
// The nouns of a disassembled CUBIN: instructions grouped by kernel, as either tool prints them.
// Both `nvdisasm -c` and `cuobjdump -sass` parse into these same structs (sass/parser.hpp), so
// the checks (sass/method_check.hpp) never know which tool ran.
//
//   /*00c0*/  @!P0 LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;
//   address   predicate  opcode . modifiers   operands

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::sass {

/// Which tool wrote a disassembly (their layouts differ; their instructions do not).
enum class sass_format { nvdisasm, cuobjdump };

inline constexpr sass_format all_sass_formats[] = {sass_format::nvdisasm, sass_format::cuobjdump};

std::string_view to_string(sass_format format);
std::optional<sass_format> sass_format_from_string(std::string_view text);

/// One SASS instruction.
struct sass_instruction {
  std::uint64_t address = 0;          // byte offset in the kernel's code, from the /*00c0*/ field
  std::string predicate;              // without '@': "P0", "!P0", "!PT", "UP1"; empty: none
  std::string opcode;                 // "LDG" (as printed: upper case)
  std::vector<std::string> modifiers; // {"E", "128", "CONSTANT"}, in printed order
  std::vector<std::string> operands;  // {"R4", "desc[UR4][R2.64]"}; split at top-level commas
  std::string text;                   // "@!P0 LDG.E.128.CONSTANT R4, desc[UR4][R2.64]" (no ';')
  std::uint32_t line = 0;             // 1-based line in the disassembly text

  /// "LDG.E.128.CONSTANT": the opcode and its modifiers, what signatures match against.
  std::string mnemonic() const;
  /// Guarded by the constant-false predicate (@!PT): it never executes. ptxas pads with these
  /// (e.g. `@!PT LDS RZ, [RZ]` before an LDGSTS), so they are no evidence of a method.
  bool never_executes() const;
};

/// The code of one function in the CUBIN: a kernel, or a device function ptxas kept out of line.
struct sass_kernel {
  std::string name;                          // the symbol as printed (mangled for C++ kernels)
  std::string arch;                          // "sm_90a"; empty when the dump did not say
  std::uint32_t line = 0;                    // 1-based line where its code starts
  std::vector<sass_instruction> instructions; // in address order
  /// nvdisasm's branch labels (".L_x_4") -> the address of the instruction after them; branch
  /// targets are printed as `(.L_x_4) there, as hex addresses by cuobjdump (sass/structure.hpp).
  std::map<std::string, std::uint64_t, std::less<>> labels;
};

/// A parsed dump of one CUBIN (or of every CUBIN of a fat binary, for cuobjdump).
struct disassembly {
  sass_format format = sass_format::nvdisasm;
  std::vector<sass_kernel> kernels; // in the order the tool printed them

  /// The first kernel named exactly `name` (a fat binary has one per architecture), or nullptr.
  const sass_kernel* find_kernel(std::string_view name) const;
  /// Every kernel's name, in order.
  std::vector<std::string> kernel_names() const;
  /// Instructions over all kernels.
  std::size_t instruction_count() const;
};

} // namespace warpforge::sass
