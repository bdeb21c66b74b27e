#pragma once
// A small streaming JSON writer: the one way warpforge emits JSON (feed events, the runner
// protocol, `--json` output). Parsing is simdjson's job; this only writes.
//
// Commas and nesting are tracked for the caller:
//   json::writer w;
//   w.begin_object().key("gpu").value(0).key("name").value("H100").end_object();
//   std::string text = std::move(w).str();   // {"gpu":0,"name":"H100"}
// Non-finite doubles are written as null (JSON has no NaN or Inf).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::json {

/// Appends `text` to `out` as a quoted, escaped JSON string.
void append_quoted(std::string& out, std::string_view text);

class writer {
public:
  writer& begin_object();
  writer& end_object();
  writer& begin_array();
  writer& end_array();

  /// Names the next value; only inside an object.
  writer& key(std::string_view name);

  writer& value(std::string_view text);
  writer& value(const char* text) { return value(std::string_view{text}); }
  writer& value(const std::string& text) { return value(std::string_view{text}); }
  writer& value(bool flag);
  writer& value(std::int64_t number);
  writer& value(std::uint64_t number);
  writer& value(int number) { return value(static_cast<std::int64_t>(number)); }
  writer& value(unsigned number) { return value(static_cast<std::uint64_t>(number)); }
  writer& value(long long number) { return value(static_cast<std::int64_t>(number)); }
  writer& value(unsigned long long number) { return value(static_cast<std::uint64_t>(number)); }
  writer& value(double number);
  writer& null();

  /// Inserts `json_text` verbatim as the next value; the caller vouches it is valid JSON.
  writer& raw(std::string_view json_text);

  /// The text written so far.
  const std::string& view() const { return out_; }
  std::string str() && { return std::move(out_); }

private:
  void before_value();

  std::string out_;
  // One entry per open container: true once it holds an element (so the next needs a comma).
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

} // namespace warpforge::json
