#pragma once
// How an error reads for a person, the same for every error type of the tree (feed_error,
// dashboard_error, store_error, tuning_error): "code: place: message", an empty place or message
// left out. The code is the error enum's word (enum_text.hpp), so a log line can be grepped by it.

#include <string>
#include <string_view>

namespace warpforge::vocabulary {

inline std::string error_text(std::string_view code, std::string_view place, std::string_view message) {
  std::string text{code};
  for (const std::string_view part : {place, message})
    if (!part.empty())
      text.append(": ").append(part);
  return text;
}

} // namespace warpforge::vocabulary
