#include "deploy/observe/inject/cupti_note.hpp"

#include "deploy/observe/inject/observer.hpp"

#include <string>

namespace warpforge::observe::inject {

bool cupti_ok(CUptiResult result, const char* call) {
  if (result == CUPTI_SUCCESS) return true;
  const char* name = nullptr;
  std::string text = cuptiGetResultString(result, &name) == CUPTI_SUCCESS && name
                         ? std::string(name)
                         : "CUptiResult " + std::to_string(static_cast<int>(result));
  the_observer().notes.add(std::string(call) + ": " + text);
  return false;
}

} // namespace warpforge::observe::inject
