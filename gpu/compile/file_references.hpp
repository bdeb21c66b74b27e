#pragma once
// Every place a CUDA C++ source names a file for the preprocessor to open, or to test for, found
// on the text as the preprocessor reads it (C++ translation phases 1-3), not on raw lines:
//
//   phase 1  trigraphs (??= is #, ??/ is \) when the reading has them (C++ before 17)
//   phase 2  line splices (backslash, optional CR, newline) removed: "#\<nl>include" is #include
//   phase 3  comments are one space ("#/**/include", a /* */ spanning lines); string, character
//            and raw string literals are skipped whole; 1'000 is one number when the reading has
//            digit separators (as EDG, NVRTC's front end, reads them: 1'$ and 1'\xC3 continue
//            it too); %: is # (digraphs are always on in C++)
//
// What counts as naming a file: a `#` (or `%:`) followed by include, include_next, import or
// embed, wherever the `#` stands (a directive needs it first on its line; looking everywhere
// only adds false alarms, never misses one); the operators __has_include, __has_include_next and
// __has_embed (they tell whether a file exists); a bare `import` followed by a header name (a
// C++20 header unit). Text the scanner cannot read the way every compiler would (an unterminated
// comment or raw string, a raw string whose delimiter is malformed or that holds a line splice or
// a trigraph, which C++ reverts inside raw strings) is a scan problem: the caller refuses it.
//
// Linear in the source's length: no recursion, no backtracking. Offsets are into the source as
// given (before phases 1 and 2), so a caller can name line and column.
//
//   for (const auto reading : every_reading) {
//     const auto scan = scan_file_references(source, reading);
//     if (scan.problem) refuse(scan.problem->offset, describe(scan.problem->fault));
//     for (const auto& reference : scan.references) check(reference);
//   }

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

/// How a compiler may read the text. The language standard (a problem's flags may set -std)
/// decides each; a source passes only if it passes under every reading.
struct source_reading {
  bool trigraphs = false;       // phase 1 replaces ??= ??/ ??' ??( ??) ??! ??< ??> ??- (C++03-14)
  bool digit_separators = true; // 1'a is one pp-number, so a ' after it opens no literal (C++14 on)
  bool raw_strings = true;      // R"d(...)d" is one literal, across lines (C++11 on)
  bool literals = true;         // false: the blind pass, which lexes no literal and no comment
                                // (but //): a file named anywhere else is seen, so a misread
                                // literal cannot hide a directive or an operator
};

/// NVRTC's default (C++17) first, so a refusal names what the default compile would read; the
/// blind pass last (with and without trigraphs).
inline constexpr std::array<source_reading, 10> every_reading{{
  {false, true, true, true},  {true, true, true, true},   {true, false, true, true},
  {false, false, true, true}, {false, true, false, true}, {true, true, false, true},
  {true, false, false, true}, {false, false, false, true},
  {false, true, true, false}, {true, true, true, false}}};

/// One place a file is named.
struct file_reference {
  std::string keyword;     // "include", "include_next", "import", "embed", "__has_include", ...
  bool has_hash = false;   // written as a directive (# or %: before the keyword)
  bool literal = false;    // the file is a header name in quotes or angle brackets
  std::string target;      // literal: the header name with its delimiters ("a.h" or <a.h>);
                           // otherwise what stands there (a macro), at most max_quoted_bytes
  std::size_t offset = 0;  // in the source as given: the '#' (or '%'), else the keyword
};

/// Text that every compiler would not read the same way.
enum class scan_fault : std::uint8_t {
  unterminated_comment,    // "/*" with no "*/" before the end
  unterminated_raw_string, // R"d( with no )d" before the end
  malformed_raw_string,    // R" whose delimiter is not 0-16 characters followed by '('
  raw_string_with_splice,  // a raw string holding a line splice or a trigraph (reverted in it)
};

std::string_view to_string(scan_fault fault);
/// Why the fault is refused, in a sentence ("a /* comment that never ends ...").
std::string_view describe(scan_fault fault);

struct scan_problem {
  scan_fault fault = scan_fault::unterminated_comment;
  std::size_t offset = 0; // in the source as given, where the construct starts
};

struct file_references {
  std::vector<file_reference> references; // in source order
  std::optional<scan_problem> problem;    // the scan stops at the first one
};

/// What a macro target is quoted as, at most (bytes); the rest is cut with "...".
inline constexpr std::size_t max_quoted_bytes = 80;

file_references scan_file_references(std::string_view source, source_reading reading);

} // namespace warpforge::gpu
