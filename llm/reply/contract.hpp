#pragma once
// What every variant of a problem must keep, read from the problem's own kernel source: the
// entry's function name, its linkage (extern "C" or C++) and template form, and its parameter
// types (the runner passes the problem's arguments in that order), plus which method ids a reply
// may claim and how many variants it may bring. The compiler finds a variant's entry the way it
// finds the problem's (NVRTC name expressions, gpu/compile/entry_name.hpp), so a variant keeps the
// original's form: an extern "C" kernel stays extern "C", a C++ one stays C++, and a template
// stays a template (the entry's instantiation, "MatrixMulCUDA<32>", must still name it).

#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm {

struct kernel_contract {
  std::string entry;                        // the __global__ function's name: the base name of
                                            // [kernel] entry ("MatrixMulCUDA" of "MatrixMulCUDA<32>")
  std::vector<std::string> parameter_types; // normalised (source_text::parameter_types):
                                            // "const float* __restrict__ in" -> "const float*";
                                            // a template's parameters as written ("T*")
  std::vector<std::string> known_methods;   // method-catalog ids a variant may claim
  std::uint32_t max_variants = 8;           // variants per reply, at most
  bool extern_c = false;                    // the original is extern "C": a variant must be; a
                                            // C++ original's variant must not be
  std::string template_head;                // the original's "template <int BLOCK_SIZE>" as its
                                            // source writes it (blank runs as one space); empty:
                                            // not a template, and a variant must not be one
};

/// The entry's declaration as the contract holds it, for the prompt and the checks' messages:
/// `extern "C" __global__ void f(const float*, int)`, `__global__ void f(float*)` or
/// `template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float*, float*, float*, int, int)`.
std::string entry_declaration(const kernel_contract& contract);

/// The contract of `source`'s `entry` ([kernel] entry as the spec writes it: "transpose",
/// "MatrixMulCUDA<BLOCK>", "over(float const*, int)"): the definition of its base name that is
/// __global__, takes the entry's parameter types when it names them, and is a template exactly
/// when the entry is. An error naming what is wrong and where when the entry does not parse, the
/// source holds no such definition, it is not __global__, or several fit and the entry does not
/// say which (its parameter types would).
expected<kernel_contract, std::string> contract_from_source(std::string_view source,
                                                            std::string_view entry,
                                                            std::vector<std::string> known_methods,
                                                            std::uint32_t max_variants);

} // namespace warpforge::llm
