#pragma once
// Writing a file so that a reader, a second writer or a resume after a kill never sees half of
// it: the text goes to a temporary file beside its place (named for this process and call, so
// two writers never share one), which is then renamed over it.
//
//   if (auto written = files::write_file_atomically(run_dir / "summary.md", text); !written)
//     report(written.error());   // names the step (create, write, rename), the file and the reason

#include "foundation/expected/expected.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace warpforge::files {

/// Writes `text` to `path`, creating its folder; the error names the step that failed, the path
/// and the system's reason. No temporary file is left behind, written or not.
expected<void, std::string> write_file_atomically(const std::filesystem::path& path, std::string_view text);

} // namespace warpforge::files
