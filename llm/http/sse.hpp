#pragma once
// A Server-Sent Events parser per the WHATWG HTML standard ("9.2 Server-sent events", event
// stream interpretation): lines end in LF, CRLF or CR; a blank line dispatches the event; `data`
// lines are joined with "\n"; lines starting with ':' are comments; `event`, `data`, `id` and
// `retry` are the fields, others are ignored; a leading UTF-8 BOM is dropped. Chunks may split the
// stream anywhere, even between a CR and its LF. An event still open when the stream ends is
// discarded, as the standard says, so a truncated stream never yields a half event.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::llm::http {

struct sse_event {
  std::string event; // the `event` field; "message" when the event had none (the standard's default)
  std::string data;  // the `data` lines joined with "\n"
  std::string id;    // the last `id` seen in the stream so far (it persists across events)

  bool operator==(const sse_event&) const = default;
};

class sse_parser {
public:
  /// Parses the next piece of the stream, calling on_event for each event it completes.
  void feed(std::string_view chunk, const std::function<void(const sse_event&)>& on_event);

  /// The reconnection time the stream asked for with `retry:` [ms], if it did.
  std::optional<std::chrono::milliseconds> retry() const { return retry_; }

private:
  void take_line(std::string_view line, const std::function<void(const sse_event&)>& on_event);
  void take_field(std::string_view name, std::string_view value);
  void dispatch(const std::function<void(const sse_event&)>& on_event);

  std::string partial_;          // the start of a line whose end has not arrived
  bool skip_lf_ = false;         // the last chunk ended in CR: an LF starting the next one is its pair
  bool at_stream_start_ = true;  // the BOM may only come first
  std::string event_type_;       // the event type buffer
  std::string data_;             // the data buffer, each line followed by "\n"
  std::string last_event_id_;    // the last event ID buffer
  std::optional<std::chrono::milliseconds> retry_;
};

} // namespace warpforge::llm::http
