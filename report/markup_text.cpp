#include "report/markup_text.hpp"

namespace warpforge::report {
namespace {

// C0 controls and DEL, which no viewer shows and XML 1.0 forbids (but tab, LF, CR).
bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

// `text` with each character `replace` names replaced by what it gives, and the other control
// characters dropped. `replace` returns nullptr for a character to keep as it is.
template <class Replace>
std::string translate(std::string_view text, Replace replace) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (const char* replacement = replace(c))
      out += replacement;
    else if (!is_control(c))
      out += c;
  }
  return out;
}

} // namespace

std::string xml_text(std::string_view text) {
  return translate(text, [](char c) -> const char* {
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&apos;";
    case '\t': return "\t";
    case '\n': return "\n";
    case '\r': return "\r";
    default: return nullptr;
    }
  });
}

std::string markdown_text(std::string_view text) {
  return translate(text, [](char c) -> const char* {
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '|': return "\\|";
    case '\n':
    case '\r':
    case '\t': return " ";
    default: return nullptr;
    }
  });
}

std::string markdown_code(std::string_view text) {
  return translate(text, [](char c) -> const char* {
    switch (c) {
    case '`': return "'";
    case '|': return "\\|";
    case '\n':
    case '\r':
    case '\t': return " ";
    default: return nullptr;
    }
  });
}

} // namespace warpforge::report
