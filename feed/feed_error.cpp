#include "feed/feed_error.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "foundation/vocabulary/error_text.hpp"

namespace warpforge::feed {

constexpr vocabulary::enum_word<feed_errc> feed_errc_words[] = {
    {feed_errc::bad_json, "bad_json"},
    {feed_errc::missing_field, "missing_field"},
    {feed_errc::bad_field, "bad_field"},
    {feed_errc::unsupported_schema, "unsupported_schema"},
    {feed_errc::unknown_event_type, "unknown_event_type"},
    {feed_errc::bad_message, "bad_message"},
    {feed_errc::bad_endpoint, "bad_endpoint"},
    {feed_errc::remote_not_allowed, "remote_not_allowed"},
    {feed_errc::bad_option, "bad_option"},
    {feed_errc::socket_error, "socket_error"},
    {feed_errc::address_in_use, "address_in_use"},
    {feed_errc::no_reply, "no_reply"},
    {feed_errc::replay_refused, "replay_refused"},
};
static_assert(vocabulary::covers(feed_errc_words, all_feed_errcs));

std::string_view to_string(feed_errc code) { return vocabulary::word_of(feed_errc_words, code); }

std::optional<feed_errc> feed_errc_from_string(std::string_view text) {
  return vocabulary::value_of(feed_errc_words, text);
}

std::string to_string(const feed_error& error) {
  return vocabulary::error_text(to_string(error.code), error.place, error.message);
}

} // namespace warpforge::feed
