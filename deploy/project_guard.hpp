#pragma once
// The only way a deployer changes anything inside the user's project. Every write goes through
// write_inside_project(), which first checks that the path is the target file or the deploy marker
// (after resolving symlinks, at the moment of the write): a `..`, or a link planted since the spec
// was read, is refused and nothing is written.

#include "config/deploy_target.hpp"
#include "foundation/expected/expected.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace warpforge::deploy {

enum class project_write : std::uint8_t {
  replace,          // write whole (temporary beside it, renamed over it), keeping its permissions
  create_exclusive, // create a new file (O_EXCL): fails with `exists` when one is there
  remove,           // unlink
};

struct project_write_error {
  bool exists = false;  // create_exclusive found the file there
  std::string message;  // the path, the step and the system's reason
};

/// Writes `text` to `path` (the target file or the marker only) as `how` says.
expected<void, project_write_error> write_inside_project(const deploy_target& target,
                                                         const std::filesystem::path& path,
                                                         project_write how,
                                                         std::string_view text = {});

} // namespace warpforge::deploy
