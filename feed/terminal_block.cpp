#include "feed/terminal_block.hpp"

#include <algorithm>

namespace warpforge::feed {
namespace {

// VT100 / ECMA-48 sequences (xterm, the Linux console, tmux and screen all read them).
constexpr std::string_view save_cursor = "\x1b" "7";            // DECSC
constexpr std::string_view restore_cursor = "\x1b" "8";         // DECRC
constexpr std::string_view reset_scroll_region = "\x1b[r";      // DECSTBM, whole screen
constexpr std::string_view erase_line = "\x1b[2K";              // EL 2
constexpr std::string_view erase_below = "\x1b[J";              // ED 0: cursor to end of screen

std::string move_to_row(std::size_t row) { // CUP, 1-based
  return "\x1b[" + std::to_string(row) + ";1H";
}

std::string scroll_region(std::size_t top, std::size_t bottom) { // DECSTBM, 1-based, inclusive
  return "\x1b[" + std::to_string(top) + ";" + std::to_string(bottom) + "r";
}

std::string cursor_up(std::size_t rows) { // CUU
  return "\x1b[" + std::to_string(rows) + "A";
}

} // namespace

std::string terminal_block::reserve(std::size_t height, std::size_t rows) {
  std::string out;
  if (height_ > 0) {
    // Give back the old reservation: region reset, old block erased.
    out += save_cursor;
    out += reset_scroll_region;
    out += move_to_row(rows_ - height_ + 1);
    out += erase_below;
    out += restore_cursor;
  }
  // Newlines scroll the screen when the cursor is near the bottom, so the block never covers
  // what is already written; then back up to where the output continues.
  out += std::string(height, '\n');
  out += cursor_up(height);
  // Setting the region homes the cursor: keep it where it was.
  out += save_cursor;
  out += scroll_region(1, rows - height);
  out += restore_cursor;
  height_ = height;
  rows_ = rows;
  return out;
}

std::string terminal_block::paint(const std::vector<std::string>& lines, std::size_t rows,
                                  std::size_t cols) {
  if (rows <= min_scroll_rows || cols < 2 || lines.empty())
    return {};
  const std::size_t height = std::min(lines.size(), rows - min_scroll_rows);
  std::string out;
  if (height != height_ || rows != rows_)
    out += reserve(height, rows);
  out += save_cursor;
  for (std::size_t index = 0; index < height; ++index) {
    out += move_to_row(rows - height + 1 + index);
    out += erase_line;
    out += lines[index].substr(0, cols - 1);
  }
  out += restore_cursor;
  return out;
}

std::string terminal_block::release(const std::vector<std::string>& final_lines) {
  std::string out;
  if (height_ > 0) {
    out += save_cursor;
    out += reset_scroll_region;
    out += move_to_row(rows_ - height_ + 1);
    out += erase_below;
    out += restore_cursor;
  }
  for (const auto& line : final_lines)
    out += line + "\n";
  height_ = 0;
  rows_ = 0;
  return out;
}

} // namespace warpforge::feed
