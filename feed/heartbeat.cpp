#include "feed/heartbeat.hpp"

#include <simdjson.h>

namespace warpforge::feed {
namespace {

unexpected<feed_error> fail(feed_errc code, std::string_view place, std::string message) {
  return unexpected{feed_error{code, std::string{place}, std::move(message)}};
}

} // namespace

event to_event(const heartbeat& pulse, double ts, std::string campaign) {
  event e;
  e.seq = pulse.last_seq;
  e.ts = ts;
  e.type = event_type::heartbeat;
  e.campaign = std::move(campaign);
  e.detail_json = detail{}
                    .add("interval_s", pulse.interval_s)
                    .add("feed_endpoint", pulse.feed_endpoint)
                    .add("replay_endpoint", pulse.replay_endpoint)
                    .add("published_total", pulse.published_total)
                    .json();
  return e;
}

expected<heartbeat, feed_error> read_heartbeat(const event& e) {
  if (e.type != event_type::heartbeat)
    return fail(feed_errc::bad_message, "type",
                "expected a heartbeat, got " + std::string{to_string(e.type)});
  thread_local simdjson::dom::parser parser; // one per thread (TOOLCHAIN.md 7.14)
  simdjson::dom::object detail;
  if (parser.parse(e.detail_json.data(), e.detail_json.size()).get_object().get(detail))
    return fail(feed_errc::bad_json, "detail", "not a JSON object");

  heartbeat pulse;
  pulse.last_seq = e.seq;
  if (detail["interval_s"].get_double().get(pulse.interval_s) || pulse.interval_s <= 0)
    return fail(feed_errc::bad_field, "interval_s", "expected a number > 0 (seconds)");
  std::string_view text;
  if (detail["feed_endpoint"].get_string().get(text))
    return fail(feed_errc::bad_field, "feed_endpoint", "expected a string");
  pulse.feed_endpoint = std::string{text};
  if (detail["replay_endpoint"].get_string().get(text))
    return fail(feed_errc::bad_field, "replay_endpoint", "expected a string");
  pulse.replay_endpoint = std::string{text};
  if (detail["published_total"].get_uint64().get(pulse.published_total))
    return fail(feed_errc::bad_field, "published_total", "expected an integer >= 0");
  return pulse;
}

} // namespace warpforge::feed
