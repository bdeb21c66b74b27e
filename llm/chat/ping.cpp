#include "llm/chat/ping.hpp"

#include <chrono>
#include <cstdio>

namespace warpforge::llm {

ping_result ping(chat_client& client, std::string_view model) {
  chat_request request;
  request.model = std::string{model};
  request.messages = {{role::user, "Reply with one word: pong"}};
  request.max_tokens = 1;
  request.max_continuations = 0; // one token is all a ping asks for
  request.purpose = "ping";
  const auto start = std::chrono::steady_clock::now();
  auto reply = client.chat(request);
  const double seconds =
    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!reply)
    return {false, std::string{to_string(reply.error().kind)} + ": " + reply.error().message,
            seconds};
  char line[64];
  std::snprintf(line, sizeof line, "answered in %.2f s by ", seconds);
  return {true, line + reply->model, seconds};
}

} // namespace warpforge::llm
