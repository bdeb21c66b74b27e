#pragma once
// What the transport tests look at after one send(): the result, whether the head came, and the
// body as the pieces on_body was given.

#include "llm/http/transport.hpp"

#include <string>
#include <vector>

namespace warpforge::llm::http {

struct exchange {
  expected<response_head, failure> result = unexpected{failure{failure_kind::protocol, "send() was not called"}};
  bool head_seen = false;
  unsigned head_status = 0;
  std::vector<std::string> pieces;

  std::string body() const {
    std::string out;
    for (const auto& piece : pieces)
      out += piece;
    return out;
  }
  failure_kind kind() const { return result ? failure_kind{} : result.error().kind; }
  std::string message() const { return result ? std::string{"(no failure)"} : result.error().message; }
};

inline exchange send_collecting(const request& r,
                                const std::function<void(std::string_view)>& also_on_body = {}) {
  exchange out;
  out.result = send(
      r,
      [&](const response_head& head) {
        out.head_seen = true;
        out.head_status = head.status;
      },
      [&](std::string_view piece) {
        out.pieces.emplace_back(piece);
        if (also_on_body)
          also_on_body(piece);
      });
  return out;
}

/// A request to `base_url` + path with short test deadlines.
inline request short_request(const std::string& base_url, std::string_view path) {
  request r;
  r.target = join(*parse_url(base_url), path);
  r.headers = {{"content-type", "application/json"}};
  r.body = R"({"model":"test"})";
  r.limits.connect = std::chrono::milliseconds{1000};
  r.limits.first_byte = std::chrono::milliseconds{1000};
  r.limits.idle = std::chrono::milliseconds{1000};
  r.limits.total = std::chrono::milliseconds{1500};
  return r;
}

} // namespace warpforge::llm::http
