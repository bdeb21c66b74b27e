#pragma once
// Text from the store (campaign, job, method and model names, reasons, compiler details) made
// safe for the report's two markup forms. Every such text goes through here, so a name such as
// `</text><script>alert(1)</script>` is shown as written and never becomes an element:
//   - the SVG charts are XML: xml_text escapes markup and drops what XML 1.0 cannot hold;
//   - summary.md is Markdown, which passes raw HTML through to the viewer: markdown_text turns
//     < > & into entities (a viewer renders them as the characters) and keeps a table cell whole.

#include <string>
#include <string_view>

namespace warpforge::report {

/// `text` for an XML text node or attribute value: & < > " ' as entities; control characters
/// other than tab, line feed and carriage return (not allowed in XML 1.0) dropped.
std::string xml_text(std::string_view text);

/// `text` for Markdown prose or a table cell, on one line: & < > as entities, | as \|, a line
/// break as a space, control characters dropped.
std::string markdown_text(std::string_view text);

/// `text` for a Markdown code span (`...`), on one line: a backtick (which would end the span)
/// as ', | as \| (tables split on it even inside a span), control characters dropped. Inside a
/// span a viewer shows < and > as written, never as a tag.
std::string markdown_code(std::string_view text);

} // namespace warpforge::report
