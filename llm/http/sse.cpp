#include "llm/http/sse.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace warpforge::llm::http {
namespace {

constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";
constexpr std::string_view default_event_type = "message";

} // namespace

void sse_parser::feed(std::string_view chunk, const std::function<void(const sse_event&)>& on_event) {
  std::size_t position = 0;
  if (skip_lf_ && !chunk.empty()) {
    skip_lf_ = false;
    if (chunk.front() == '\n')
      position = 1;
  }
  while (position < chunk.size()) {
    auto end = chunk.find_first_of("\r\n", position);
    if (end == std::string_view::npos) {
      partial_.append(chunk.substr(position));
      return;
    }
    if (partial_.empty()) {
      take_line(chunk.substr(position, end - position), on_event);
    } else {
      partial_.append(chunk.substr(position, end - position));
      take_line(partial_, on_event);
      partial_.clear();
    }
    if (chunk[end] == '\r') {
      if (end + 1 == chunk.size())
        skip_lf_ = true; // the LF, if any, comes with the next chunk
      else if (chunk[end + 1] == '\n')
        ++end;
    }
    position = end + 1;
  }
}

void sse_parser::take_line(std::string_view line, const std::function<void(const sse_event&)>& on_event) {
  if (at_stream_start_) {
    at_stream_start_ = false;
    if (line.starts_with(utf8_bom))
      line.remove_prefix(utf8_bom.size());
  }
  if (line.empty())
    return dispatch(on_event);
  if (line.front() == ':')
    return; // a comment (servers send them to keep the connection alive)
  const auto colon = line.find(':');
  if (colon == std::string_view::npos)
    return take_field(line, {});
  auto value = line.substr(colon + 1);
  if (value.starts_with(' '))
    value.remove_prefix(1);
  take_field(line.substr(0, colon), value);
}

void sse_parser::take_field(std::string_view name, std::string_view value) {
  if (name == "event") {
    event_type_ = value;
  } else if (name == "data") {
    data_.append(value);
    data_ += '\n';
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos)
      last_event_id_ = value;
  } else if (name == "retry") {
    std::uint64_t milliseconds = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), milliseconds);
    if (!value.empty() && error == std::errc{} && end == value.data() + value.size())
      retry_ = std::chrono::milliseconds{milliseconds};
  }
}

void sse_parser::dispatch(const std::function<void(const sse_event&)>& on_event) {
  if (data_.empty()) {
    event_type_.clear();
    return;
  }
  data_.pop_back(); // the "\n" after the last data line
  sse_event event{event_type_.empty() ? std::string{default_event_type} : std::move(event_type_),
                  std::move(data_), last_event_id_};
  event_type_.clear();
  data_.clear();
  on_event(event);
}

} // namespace warpforge::llm::http
