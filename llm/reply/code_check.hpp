#pragma once
// The checks on one kernel source from a reply, before anything compiles it: present, complete
// (no elision), ASCII only, the contract's entry in the original's form (__global__, extern "C"
// exactly when the original is, a template when it is) with its parameter types, and no
// host-side code (kernel mode: NVRTC compiles device code, the runner launches it).
// Token checks run on the source with comments and literals blanked, so a comment cannot trip
// them; elision markers are looked for in the comments too. Every problem names its line and
// column within the code.

#include "llm/reply/contract.hpp"
#include "llm/reply/reply_fault.hpp"

#include <cstddef>
#include <string_view>
#include <vector>

namespace warpforge::llm {

/// Problems of the same fault beyond this many per code are summed up in one line.
inline constexpr std::size_t max_problems_per_fault = 3;

/// Every problem of `code`; `where` is its place in the reply ("variants[1].code"), to which
/// each problem adds " line L column C". Empty when the code passes.
std::vector<reply_problem> check_code(std::string_view code, std::string_view where,
                                      const kernel_contract& contract);

} // namespace warpforge::llm
