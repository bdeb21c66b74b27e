#pragma once
// Whether a configured provider answers, for `warpforge doctor`: a one-token request, no
// continuation. The detail says how it went (time, model, or the error's kind and message); like
// every client message it never holds the key.

#include "llm/chat/chat.hpp"

#include <string>
#include <string_view>

namespace warpforge::llm {

struct ping_result {
  bool ok = false;     // the provider answered with a reply
  std::string detail;  // "answered in 0.41 s by claude-haiku-4-5" or "auth: anthropic: HTTP 401 ..."
  double seconds = 0;  // wall time of the ping, retries included
};

ping_result ping(chat_client& client, std::string_view model);

} // namespace warpforge::llm
