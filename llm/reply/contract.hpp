#pragma once
// What every variant of a problem must keep, read from the problem's own kernel source: the
// entry's name and its parameter types (the runner passes the problem's arguments in that
// order), plus which method ids a reply may claim and how many variants it may bring.

#include "foundation/expected/expected.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm {

struct kernel_contract {
  std::string entry;                        // the extern "C" __global__ function's name
  std::vector<std::string> parameter_types; // normalised (source_text::parameter_types):
                                            // "const float* __restrict__ in" -> "const float*"
  std::vector<std::string> known_methods;   // method-catalog ids a variant may claim
  std::uint32_t max_variants = 8;           // variants per reply, at most
};

/// The contract of `source`'s `entry`: an error naming what is missing when the source holds no
/// definition of `entry`, it is not __global__, or not extern "C" (its name would be mangled).
expected<kernel_contract, std::string> contract_from_source(std::string_view source,
                                                            std::string_view entry,
                                                            std::vector<std::string> known_methods,
                                                            std::uint32_t max_variants);

} // namespace warpforge::llm
