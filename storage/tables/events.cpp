// events: the feed's events under the seq the feed gave them, strictly increasing from 1.

#include "storage/database.hpp"
#include "storage/query.hpp"

namespace warpforge::storage {
namespace {

constexpr table events{"events", key_source::caller,
                       column{"seq", &event_row::seq},
                       column{"ts", &event_row::ts},
                       column{"type", &event_row::type},
                       column{"campaign", &event_row::campaign},
                       column{"job", &event_row::job},
                       column{"iter", &event_row::iter},
                       column{"branch", &event_row::branch},
                       column{"gpu", &event_row::gpu},
                       column{"json", &event_row::json}};

/// The WHERE that keeps seq strictly increasing, in the statement that inserts (?1 is the seq).
constexpr std::string_view after_the_last_seq = "?1 > (SELECT coalesce(max(seq), 0) FROM events)";

} // namespace

expected<std::int64_t, store_error> database::append_event(const event_row& row) {
  if (row.seq < 1)
    return unexpected{store_error{store_error_code::invalid_argument,
                                  "append_event: seq " + std::to_string(row.seq) + " is below 1"}};
  auto appended = named("append_event", insert_row_where(conn_, events, row, after_the_last_seq));
  if (!appended)
    return unexpected{std::move(appended).error()};
  if (!*appended) {
    auto next = next_event_seq();
    return unexpected{store_error{store_error_code::constraint,
                                  "append_event: seq " + std::to_string(row.seq) +
                                      " is not after the last stored seq " +
                                      (next ? std::to_string(*next - 1) : std::string{"(unreadable)"})}};
  }
  return row.seq;
}

expected<std::int64_t, store_error> database::next_event_seq() {
  auto next = select_value<std::int64_t>(conn_, "SELECT coalesce(max(seq), 0) + 1 FROM events");
  if (!next)
    return unexpected{with_context(std::move(next).error(), "next_event_seq")};
  return next->value_or(1);
}

expected<std::vector<event_row>, store_error> database::events_since(std::int64_t after_seq, std::int64_t limit) {
  if (limit < 1)
    return unexpected{store_error{store_error_code::invalid_argument,
                                  "events_since: limit " + std::to_string(limit) + " is below 1"}};
  return named("events_since", select_rows(conn_, events, "WHERE seq > ? ORDER BY seq LIMIT ?", after_seq, limit));
}

expected<std::optional<event_row>, store_error> database::last_event() {
  auto last = named("last_event", select_rows(conn_, events, "ORDER BY seq DESC LIMIT 1"));
  if (!last)
    return unexpected{std::move(last).error()};
  if (last->empty())
    return std::optional<event_row>{};
  return std::optional<event_row>{std::move(last->front())};
}

} // namespace warpforge::storage
