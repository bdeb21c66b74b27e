#include "deploy/observe/inject/demangle.hpp"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace warpforge::observe::inject {

std::string demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && text ? std::string(text.get()) : symbol;
}

} // namespace warpforge::observe::inject
