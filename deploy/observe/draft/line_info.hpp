#pragma once
// Where a kernel's source is, from the program's own debug line info: a program built with
// -lineinfo (or -G) carries, in each CUBIN, the source file and line of every instruction.
// `cuobjdump -xelf all PROGRAM` extracts the CUBINs, `nvdisasm -g CUBIN` prints the listing with
// `//## File "<path>", line <n>` comments; the first such comment inside the kernel's function is
// where it is defined (or the first line of it that made code). Without line info, or without
// the tools, the caller is told why and to give --source.

#include "foundation/expected/expected.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::observe {

struct source_place {
  std::filesystem::path file; // as the compiler recorded it (absolute when nvcc got an absolute path)
  std::size_t line = 0;       // 1-based
};

/// The first `//## File "...", line N` after the label of `symbol` (its `.text.<symbol>:` line)
/// and before the next function's label, in an nvdisasm -g listing.
std::optional<source_place> first_line_of_function(std::string_view listing, std::string_view symbol);

/// Runs cuobjdump and nvdisasm (on PATH, else in $CUDA_HOME/bin) on `program` in `work_dir` (made
/// if missing; the CUBINs and listings stay there) and finds `symbol`'s source place. The error
/// says which step failed, or that the program carries no line info for it (build with -lineinfo).
expected<source_place, std::string> kernel_place_from_line_info(const std::filesystem::path& program,
                                                                std::string_view symbol,
                                                                const std::filesystem::path& work_dir);

} // namespace warpforge::observe
