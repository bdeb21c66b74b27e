#include "feed/dashboard/dashboard_error.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "foundation/vocabulary/error_text.hpp"

namespace warpforge::dashboard {

constexpr vocabulary::enum_word<dashboard_errc> dashboard_errc_words[] = {
    {dashboard_errc::bad_listen_address, "bad_listen_address"},
    {dashboard_errc::remote_not_allowed, "remote_not_allowed"},
    {dashboard_errc::socket_error, "socket_error"},
    {dashboard_errc::bad_source, "bad_source"},
};
static_assert(vocabulary::covers(dashboard_errc_words, all_dashboard_errcs));

std::string_view to_string(dashboard_errc code) { return vocabulary::word_of(dashboard_errc_words, code); }

std::optional<dashboard_errc> dashboard_errc_from_string(std::string_view text) {
  return vocabulary::value_of(dashboard_errc_words, text);
}

std::string to_string(const dashboard_error& error) {
  return vocabulary::error_text(to_string(error.code), error.place, error.message);
}

} // namespace warpforge::dashboard
