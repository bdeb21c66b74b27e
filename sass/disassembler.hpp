#pragma once
// CUBIN → disassembly, with the toolkit's disassembler run as a child process with a deadline.
// nvdisasm (`nvdisasm -c <cubin>`) is preferred; cuobjdump (`cuobjdump -sass <cubin>`) is the
// fallback. Each is looked for on $PATH, then in $CUDA_HOME/bin, then in /usr/local/cuda/bin.
// A host with neither gets a failure of kind `unavailable` naming where it looked — never an
// empty disassembly that a check could read as "method absent". Machine code this process
// disassembled before is answered from what the tool printed then (listing_memo.hpp).

#include "foundation/expected/expected.hpp"
#include "sass/disassembly.hpp"
#include "sass/listing_memo.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::sass {

/// How long one disassembler run may take before it is killed.
inline constexpr std::chrono::seconds disassemble_timeout{30};
/// How much of a failed tool's output a failure quotes (its end), bytes.
inline constexpr std::size_t quoted_tool_output_bytes = 2000;

/// Why there is no disassembly.
enum class disassemble_failure_kind {
  unavailable,   // no disassembler on this host (or the one given does not exist)
  missing_cubin, // the CUBIN file is not there
  tool_failed,   // the tool ran and exited non-zero, or was killed by a signal
  timed_out,     // the tool did not finish within the timeout and was killed
  unparseable,   // the tool's output is not a listing the parser reads
};

inline constexpr disassemble_failure_kind all_disassemble_failure_kinds[] = {
    disassemble_failure_kind::unavailable, disassemble_failure_kind::missing_cubin,
    disassemble_failure_kind::tool_failed, disassemble_failure_kind::timed_out,
    disassemble_failure_kind::unparseable};

std::string_view to_string(disassemble_failure_kind kind);
std::optional<disassemble_failure_kind> disassemble_failure_kind_from_string(std::string_view text);

struct disassemble_failure {
  disassemble_failure_kind kind = disassemble_failure_kind::unavailable;
  std::string detail; // "no nvdisasm or cuobjdump on this host (looked on PATH, in ...)"

  /// "unavailable: no nvdisasm or cuobjdump on this host (...)".
  std::string to_string() const;
};

/// A disassembler to run: the executable and which layout it prints.
struct disassembler {
  std::filesystem::path tool; // run as is, no PATH search
  sass_format format = sass_format::nvdisasm;

  /// The tool's arguments for `cubin`: {"-c", cubin} or {"-sass", cubin}.
  std::vector<std::string> arguments(const std::filesystem::path& cubin) const;
};

/// Where to look for a disassembler, so tests can set it.
struct tool_search {
  std::optional<std::string> path;                 // $PATH (colon-separated)
  std::vector<std::filesystem::path> cuda_homes;   // their bin/ folders are searched, in order

  /// $PATH, then $CUDA_HOME when set, else /usr/local/cuda (the toolkit doctor reports).
  static tool_search from_process();
};

/// What every output says of the SASS check on a host with neither tool: never "checked".
inline constexpr std::string_view not_checked_no_disassembler =
  "not checked: no disassembler (nvdisasm/cuobjdump not found)";

/// nvdisasm if found anywhere in `where`, else cuobjdump; `unavailable` when neither is.
expected<disassembler, disassemble_failure> find_disassembler(const tool_search& where);
expected<disassembler, disassemble_failure> find_disassembler();

/// Runs `tool` on `cubin` and parses what it prints, unless `memo` holds what it printed for the
/// same machine code.
expected<disassembly, disassemble_failure>
disassemble(const disassembler& tool, const std::filesystem::path& cubin,
            std::chrono::milliseconds timeout = disassemble_timeout,
            listing_memo& memo = listing_memo::of_process());

/// find_disassembler() then disassemble().
expected<disassembly, disassemble_failure> disassemble(const std::filesystem::path& cubin);

} // namespace warpforge::sass
