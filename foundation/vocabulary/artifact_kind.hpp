#pragma once
// The kinds of file a run directory keeps (the artifacts table).

#include "foundation/vocabulary/enum_text.hpp"

#include <array>

namespace warpforge::vocabulary {

enum class artifact_kind {
  source,      ///< a kernel source (.cu)
  compile_log, ///< compiler output
  ptx,         ///< PTX text
  cubin,       ///< compiled binary
  sass,        ///< disassembly
  metrics,     ///< profiler counters
  prompt,      ///< a prompt sent to the LLM
  response,    ///< the LLM's reply
  report,      ///< summary.md, exports, simulator configs
  log,         ///< a component's log file
};
inline constexpr std::array all_artifact_kinds{
    artifact_kind::source,  artifact_kind::compile_log, artifact_kind::ptx,
    artifact_kind::cubin,   artifact_kind::sass,        artifact_kind::metrics,
    artifact_kind::prompt,  artifact_kind::response,    artifact_kind::report,
    artifact_kind::log};

std::string_view to_string(artifact_kind value);

template <>
std::optional<artifact_kind> from_string<artifact_kind>(std::string_view text);

} // namespace warpforge::vocabulary
