#include "feed/dashboard/dashboard_error.hpp"

namespace warpforge::dashboard {

std::string_view to_string(dashboard_errc code) {
  switch (code) {
    case dashboard_errc::bad_listen_address: return "bad_listen_address";
    case dashboard_errc::remote_not_allowed: return "remote_not_allowed";
    case dashboard_errc::socket_error: return "socket_error";
    case dashboard_errc::bad_source: return "bad_source";
  }
  return "unknown";
}

std::optional<dashboard_errc> dashboard_errc_from_string(std::string_view text) {
  for (auto code : all_dashboard_errcs)
    if (to_string(code) == text)
      return code;
  return std::nullopt;
}

std::string to_string(const dashboard_error& error) {
  std::string text{to_string(error.code)};
  if (!error.place.empty())
    text.append(": ").append(error.place);
  if (!error.message.empty())
    text.append(": ").append(error.message);
  return text;
}

} // namespace warpforge::dashboard
