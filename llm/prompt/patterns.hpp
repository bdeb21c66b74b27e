#pragma once
// The cross-kernel pattern library (Kernelking's CUDA_OPTIMIZATION.md, SEEDS-FACTS 3.1): every
// job's accepted attempts, distilled into "which method set worked on which bottleneck, and how
// much", so a new kernel starts from what worked on its neighbours. Kept as one JSON file that
// every job of every campaign adds to; rendered grouped by method set and bottleneck:
//
//   memory.tiling_smem + memory.bank_conflict (memory_bound): 3 accepted, best 5.60x (transpose: padded 32x33 tile)
//
//   auto library = pattern_library::load(path);          // a missing file is an empty library
//   library->add({"transpose", "memory_bound", {"memory.tiling_smem"}, 5.6, "32x33 tile"});
//   library->save(path);                                 // JSON, temp file + rename
//
// File format: {"schema": 1, "patterns": [{"kernel", "bottleneck", "methods": [...],
// "speedup", "memo"}, ...]}.

#include "foundation/expected/expected.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace warpforge::llm {

struct pattern_entry {
  std::string kernel;               // the problem's name
  std::string bottleneck;           // the diagnosis's bottleneck before the attempt: "memory_bound"
  std::vector<std::string> methods; // the methods the accepted attempt claimed
  double speedup = 1;               // vs that job's baseline (ratio, > 1 is faster)
  std::string memo;                 // the attempt's one-line memo
  friend bool operator==(const pattern_entry&, const pattern_entry&) = default;
};

class pattern_library {
public:
  /// Adds an accepted attempt; an entry equal to one already held is not added twice (a resumed
  /// job distils its attempts again), nor one whose speed-up is not a finite number.
  void add(pattern_entry entry);
  const std::vector<pattern_entry>& entries() const { return entries_; }

  /// One line per (method set, bottleneck) group: most accepted first, then best speed-up, then
  /// name; at most `max_lines` groups and a last line counting those left out; "" when empty.
  std::string render(std::size_t max_lines = 30) const;

  /// The library in `path`; a missing file is an empty library; an unreadable or malformed one
  /// is an error naming the file and what is wrong.
  static expected<pattern_library, std::string> load(const std::filesystem::path& path);
  /// Writes the library to `path` atomically (a temp file beside it, then a rename), creating
  /// the folder; an error names the step that failed.
  expected<void, std::string> save(const std::filesystem::path& path) const;

  /// The JSON text save() writes, and its parser (errors name the entry: "patterns[2].speedup").
  std::string to_json() const;
  static expected<pattern_library, std::string> from_json(std::string_view text);

private:
  std::vector<pattern_entry> entries_;
};

} // namespace warpforge::llm
