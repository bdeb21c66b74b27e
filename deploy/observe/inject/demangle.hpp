#pragma once
// A kernel symbol as people write it (abi::__cxa_demangle): the launch log's `demangled`, and the
// name the buffer watch matches against its kernel at the launch call.

#include <string>

namespace warpforge::observe::inject {

/// The demangled symbol, or the symbol unchanged (an extern "C" name, or one that does not demangle).
std::string demangle(const std::string& symbol);

} // namespace warpforge::observe::inject
