#include "feed/feed_error.hpp"

namespace warpforge::feed {

std::string_view to_string(feed_errc code) {
  switch (code) {
    case feed_errc::bad_json: return "bad_json";
    case feed_errc::missing_field: return "missing_field";
    case feed_errc::bad_field: return "bad_field";
    case feed_errc::unsupported_schema: return "unsupported_schema";
    case feed_errc::unknown_event_type: return "unknown_event_type";
    case feed_errc::bad_message: return "bad_message";
    case feed_errc::bad_endpoint: return "bad_endpoint";
    case feed_errc::remote_not_allowed: return "remote_not_allowed";
    case feed_errc::bad_option: return "bad_option";
    case feed_errc::socket_error: return "socket_error";
    case feed_errc::no_reply: return "no_reply";
    case feed_errc::replay_refused: return "replay_refused";
  }
  return "unknown";
}

std::optional<feed_errc> feed_errc_from_string(std::string_view text) {
  for (auto code : all_feed_errcs)
    if (to_string(code) == text)
      return code;
  return std::nullopt;
}

std::string to_string(const feed_error& error) {
  std::string text{to_string(error.code)};
  if (!error.place.empty())
    text.append(": ").append(error.place);
  if (!error.message.empty())
    text.append(": ").append(error.message);
  return text;
}

} // namespace warpforge::feed
