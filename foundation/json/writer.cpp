#include "foundation/json/writer.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace warpforge::json {

void append_quoted(std::string& out, std::string_view text) {
  out.push_back('"');
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void writer::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_element_.empty()) {
    if (has_element_.back())
      out_.push_back(',');
    has_element_.back() = true;
  }
}

writer& writer::begin_object() {
  before_value();
  out_.push_back('{');
  has_element_.push_back(false);
  return *this;
}

writer& writer::end_object() {
  if (has_element_.empty())
    throw std::logic_error("json::writer: end_object without begin_object");
  has_element_.pop_back();
  out_.push_back('}');
  return *this;
}

writer& writer::begin_array() {
  before_value();
  out_.push_back('[');
  has_element_.push_back(false);
  return *this;
}

writer& writer::end_array() {
  if (has_element_.empty())
    throw std::logic_error("json::writer: end_array without begin_array");
  has_element_.pop_back();
  out_.push_back(']');
  return *this;
}

writer& writer::key(std::string_view name) {
  before_value();
  append_quoted(out_, name);
  out_.push_back(':');
  after_key_ = true;
  return *this;
}

writer& writer::value(std::string_view text) {
  before_value();
  append_quoted(out_, text);
  return *this;
}

writer& writer::value(bool flag) {
  before_value();
  out_ += flag ? "true" : "false";
  return *this;
}

writer& writer::value(std::int64_t number) {
  before_value();
  out_ += std::to_string(number);
  return *this;
}

writer& writer::value(std::uint64_t number) {
  before_value();
  out_ += std::to_string(number);
  return *this;
}

writer& writer::value(double number) {
  before_value();
  if (!std::isfinite(number)) {
    out_ += "null";
    return *this;
  }
  char buffer[32];
  // %.17g round-trips every double exactly.
  std::snprintf(buffer, sizeof buffer, "%.17g", number);
  out_ += buffer;
  return *this;
}

writer& writer::null() {
  before_value();
  out_ += "null";
  return *this;
}

writer& writer::raw(std::string_view json_text) {
  before_value();
  out_ += json_text;
  return *this;
}

} // namespace warpforge::json
