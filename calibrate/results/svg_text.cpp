#include "calibrate/results/svg_text.hpp"

#include "report/markup_text.hpp"

#include <cstdio>

namespace warpforge::calibrate::svg {

std::string escape(std::string_view text) {
  return report::xml_text(text); // one XML escaping for every chart (report/markup_text.hpp)
}

std::string coord(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

std::string open(int width, int height, std::string_view title) {
  const std::string w = std::to_string(width), h = std::to_string(height);
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" + h +
         "\" viewBox=\"0 0 " + w + " " + h + "\" font-family=\"sans-serif\">\n"
         "<title>" + escape(title) + "</title>\n"
         "<rect x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h + "\" fill=\"white\"/>\n";
}

std::string text(double x, double y, std::string_view content, std::string_view anchor, int size) {
  return "<text x=\"" + coord(x) + "\" y=\"" + coord(y) + "\" text-anchor=\"" +
         std::string{anchor} + "\" font-size=\"" + std::to_string(size) + "\">" + escape(content) +
         "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, std::string_view stroke,
                 std::string_view dash) {
  std::string out = "<line x1=\"" + coord(x1) + "\" y1=\"" + coord(y1) + "\" x2=\"" + coord(x2) +
                    "\" y2=\"" + coord(y2) + "\" stroke=\"" + std::string{stroke} + "\"";
  if (!dash.empty())
    out += " stroke-dasharray=\"" + std::string{dash} + "\"";
  return out + "/>\n";
}

} // namespace warpforge::calibrate::svg
