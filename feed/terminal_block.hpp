#pragma once
// A block of status lines kept at the bottom of a terminal while other output (log lines) scrolls
// above it: the lines above the block become a scroll region (DECSTBM, as apt's progress line
// does), so a log line written meanwhile neither garbles the block nor is overwritten by it.
// This class only builds the escape sequences; the caller writes each returned string with one
// write() and knows the terminal's size (TIOCGWINSZ).

#include <cstddef>
#include <string>
#include <vector>

namespace warpforge::feed {

/// Rows always left to the scrolling output above the block [rows].
inline constexpr std::size_t min_scroll_rows = 3;

class terminal_block {
public:
  /// The text that draws `lines` on the bottom rows of a `rows` x `cols` terminal, first
  /// reserving them (again) when the block's height or the terminal's height changed. Lines are
  /// cut to cols - 1 characters; a block taller than rows - min_scroll_rows shows its first lines.
  std::string paint(const std::vector<std::string>& lines, std::size_t rows, std::size_t cols);

  /// The text that gives the terminal back: the scroll region reset, the block erased, then
  /// `final_lines` printed where the output had got to. Nothing to reset when nothing was painted.
  std::string release(const std::vector<std::string>& final_lines);

  /// Rows the block takes now; 0 before the first paint and after release.
  std::size_t height() const { return height_; }

private:
  std::string reserve(std::size_t height, std::size_t rows);

  std::size_t height_ = 0; // rows reserved at the bottom
  std::size_t rows_ = 0;   // the terminal's height when they were reserved
};

} // namespace warpforge::feed
