#pragma once
// Small pieces of SVG text shared by the charts (internal to calibrate/results).

#include <string>
#include <string_view>

namespace warpforge::calibrate::svg {

/// `text` with &, <, >, " and ' escaped for XML, control characters other than tab, LF and CR
/// dropped: every text of a calibrate chart goes through here (report/markup_text.hpp is the
/// campaign report's counterpart), so a parameter's name never becomes markup.
std::string escape(std::string_view text);
/// A coordinate with 2 decimals ("12.50").
std::string coord(double value);
/// The opening of a standalone SVG document of `width` x `height` pixels, white background.
std::string open(int width, int height, std::string_view title);
/// <text> at (x, y) with an anchor ("start", "middle", "end") and a font size in pixels.
std::string text(double x, double y, std::string_view content, std::string_view anchor = "start",
                 int size = 12);
/// <line> from (x1, y1) to (x2, y2) with a stroke colour and an optional dash pattern ("4 3").
std::string line(double x1, double y1, double x2, double y2, std::string_view stroke,
                 std::string_view dash = {});

} // namespace warpforge::calibrate::svg
