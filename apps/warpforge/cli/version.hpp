#pragma once
// What `warpforge --version` prints: the version, the git commit, the build type and the versions
// of the CUDA toolkit and CAF this binary was built against, one per line (known at configure
// time: cmake/WarpforgeVersion.cmake).

#include <string>

namespace warpforge::cli {

/// "warpforge 0.1.0\ncommit 54fdc87-dirty\nbuild type Release\nCUDA toolkit 13.0.88\nCAF 0.17.6\n"
std::string version_text();

} // namespace warpforge::cli
