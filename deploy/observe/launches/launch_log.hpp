#pragma once
// The launch log: what the injection library (deploy/observe/inject/) writes while a program runs, one
// JSON object per line (JSONL), and the reader for it.
//
//   {"seq":0,"kernel":"_Z5scaleIfEvPT_iS0_","demangled":"void scale<float>(float*, int, float)",
//    "grid":[x,y,z],"block":[x,y,z],"smem":0,"duration_ns":1234,"device":0,
//    "params":[{"offset":0,"size":8,"hex":"00a0..."}],
//    "buffers":[{"param":0,"allocation":N,"allocation_bytes":B,"before":"<16 hex>","after":"..."}]}
//                               ^ optional: only launches of WARPFORGE_OBSERVE_BUFFERS's kernel
//   ...
//   {"end":true,"launches":N,"dropped":D,"notes":["..."]}      <- once, at the program's exit
//
// Lines are written in the order CUPTI delivers activity records, not launch order; the reader
// returns launches sorted by seq. A log without the end line is still read (complete = false):
// the program may have crashed or been killed before the library could finish it.

#include "foundation/expected/expected.hpp"
#include "deploy/observe/launches/launch_record.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::observe {

struct launch_log {
  std::vector<launch_record> launches; // sorted by sequence (launch order)
  bool complete = false;               // the end line was seen
  std::uint64_t dropped = 0;           // launches the library saw but could not record
  std::vector<std::string> notes;      // the library's notes, then the reader's own (if any)
};

/// Reads a log; an error names the file and the 1-based line ("<path>:3: key \"grid\": ...").
/// Strict: every line must be one object with exactly the keys above, of the right types.
/// Tolerated without error: a missing end line, and (only then) a cut-off last line, which
/// becomes a note.
expected<launch_log, std::string> read_launch_log(const std::filesystem::path& path);

/// The same, from the log's text (`origin` names it in errors).
expected<launch_log, std::string> parse_launch_log(std::string_view text, std::string_view origin);

} // namespace warpforge::observe
