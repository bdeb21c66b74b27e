#pragma once
// From a problem's entry as written (config/kernel_entry.hpp: "transposeNaive",
// "MatrixMulCUDA<32>", "reduce7<int, 256, true>", "over(float*)") to the kernel's symbol in a
// CUBIN, and back:
//
//   compile   NVRTC is given name_expression(entry) (nvrtcAddNameExpression), which also
//             instantiates a template, and says the lowered name after compiling; compile_kernel
//             then checks that entry_symbol finds that same symbol in the module, so everything
//             after the compiler can find it from the CUBIN and the entry alone.
//   runner    load_kernel: entry_symbol(the CUBIN's kernels, entry) → cuModuleGetFunction.
//   profiler  ncu --kernel-name-base mangled --kernel-name <symbol>.
//   SASS      the function section named by the symbol.
//   observe   names_kernel(entry, the launch's symbol) matches observed launches to the entry;
//             entry_of_symbol drafts an entry from one.
//
// An extern "C" kernel's lowered name is its own name, so for it every step is unchanged. A
// symbol is matched by demangling it (the Itanium C++ ABI's demangler of the C++ runtime,
// abi::__cxa_demangle; NVRTC mangles the same way) and comparing the normalised forms: the same
// qualified name, the same template arguments (256u is 256), and the same parameter types when
// the entry gives them. An entry that is ambiguous (overloads, several instantiations) names no
// symbol: the error lists the module's kernels, demangled.

#include "config/kernel_entry.hpp"
#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace warpforge::gpu {

/// What NVRTC is given as the entry's name expression: the canonical spelling, or, with
/// parameter types, static_cast<void(*)(types)>(name<arguments>) (which picks one overload).
std::string name_expression(const config::kernel_entry& entry);

/// "_Z14transposeNaivePfS_ii" → "transposeNaive(float*, float*, int, int)"; a name that is not
/// mangled (an extern "C" kernel's) comes back as it is.
std::string demangled(std::string_view symbol);

/// The entry a symbol stands for (lowered, demangled, or an extern "C" name): its qualified
/// name, template arguments and parameter types, normalised; "void " before a template's
/// demangled name is dropped. nullopt when the demangled form is not one a problem can name
/// (an anonymous namespace, a lambda, an operator).
std::optional<config::kernel_entry> entry_of_symbol(std::string_view symbol);

/// Whether `symbol` (lowered, demangled or plain) is the kernel `entry` names: the same
/// qualified name, both templates with the same arguments or both not, and the same parameter
/// types when the entry gives them.
bool names_kernel(const config::kernel_entry& entry, std::string_view symbol);

/// The one symbol among `kernels` (a module's kernel symbols) that `entry` names: the symbol
/// equal to `entry` when there is one (an extern "C" name, or the lowered name itself), else
/// the only one names_kernel accepts. The error says why none is found ("entry 'k<4>' is not a
/// kernel of the module (kernels: ...)" or "... names 2 kernels ...; give its parameter types").
expected<std::string, std::string> entry_symbol(std::span<const std::string> kernels, std::string_view entry);

/// entry_symbol over the kernels of a CUBIN (cubin_resources.hpp's kernel_entries).
expected<std::string, std::string> entry_symbol_in_cubin(std::span<const std::uint8_t> cubin,
                                                         std::string_view entry);

} // namespace warpforge::gpu
