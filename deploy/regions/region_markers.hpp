#pragma once
// The region markers of a user's source file, read strictly: `// warpforge:begin <name>` and
// `// warpforge:end <name>`, each on a line of its own (leading blanks allowed). A deploy writes
// only between a region's markers (source_splice.hpp); `warpforge init` finds the region that
// holds the kernel it drafts a problem for (deploy/observe/draft_problem.hpp).
//
// Every marker in the file is checked, not only the named region's, because a stray one means the
// file is not what its author thinks: an end without its begin, a begin without its end, a region
// opened inside another (nesting), a name marked twice, a marker without a name. Each is an error
// naming the file and the 1-based line ("src/k.cu:42: ...").

#include "foundation/expected/expected.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::deploy {

struct marked_region {
  std::string name;
  std::size_t begin_line = 0;    // 1-based line of the begin marker
  std::size_t end_line = 0;      // 1-based line of the end marker
  std::size_t content_begin = 0; // byte offset: the first byte after the begin marker's line
  std::size_t content_end = 0;   // byte offset: the first byte of the end marker's line
};

/// Every region of `text`, in file order; `origin` names the file in errors.
expected<std::vector<marked_region>, std::string> read_regions(std::string_view text, std::string_view origin);

/// The region `name` of `text`; an error when the markers are wrong (above) or `name` is not marked.
expected<marked_region, std::string> find_region(std::string_view text, std::string_view name, std::string_view origin);

} // namespace warpforge::deploy
