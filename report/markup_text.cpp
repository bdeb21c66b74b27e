#include "report/markup_text.hpp"

namespace warpforge::report {
namespace {

// C0 controls and DEL, which no viewer shows and XML 1.0 forbids (but tab, LF, CR).
bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

} // namespace

std::string xml_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    case '\t':
    case '\n':
    case '\r': out += c; break;
    default:
      if (!is_control(c))
        out += c;
    }
  }
  return out;
}

std::string markdown_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '|': out += "\\|"; break;
    case '\n':
    case '\r':
    case '\t': out += ' '; break;
    default:
      if (!is_control(c))
        out += c;
    }
  }
  return out;
}

std::string markdown_code(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '`': out += '\''; break;
    case '|': out += "\\|"; break;
    case '\n':
    case '\r':
    case '\t': out += ' '; break;
    default:
      if (!is_control(c))
        out += c;
    }
  }
  return out;
}

} // namespace warpforge::report
