#include "calibrate/results/parameter_result.hpp"

#include <cctype>

namespace warpforge::calibrate {

bool was_measured(const parameter_result& result) { return result.value.has_value(); }

std::string not_measured_reason(const parameter_result& result) {
  if (was_measured(result))
    return "";
  if (!result.notes.empty())
    return result.notes.back();
  switch (result.result) {
  case status::sass_mismatch: return "the benchmark's SASS lacks an instruction it must time";
  case status::compile_error: return "the benchmark did not compile";
  case status::runtime_error: return "no trial gave a value: the benchmark failed or crashed";
  case status::timeout: return "no trial gave a value: the benchmark ran past its watchdog";
  default: return "no usable trial";
  }
}

bool verdict_passed(std::string_view verdict_text) {
  auto starts_with = [&](std::string_view prefix) {
    if (verdict_text.size() < prefix.size())
      return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(verdict_text[i])) != prefix[i])
        return false;
    return true;
  };
  return starts_with("pass") || starts_with("ok");
}

} // namespace warpforge::calibrate
