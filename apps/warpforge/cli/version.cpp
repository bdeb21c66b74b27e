#include "apps/warpforge/cli/version.hpp"

#include <warpforge/version_info.hpp> // generated in the build tree

namespace warpforge::cli {

std::string version_text() {
  return std::string{"warpforge "} + build_info::version + "\ncommit " + build_info::git_commit +
         "\nbuild type " + build_info::build_type + "\nCUDA toolkit " + build_info::cuda_toolkit_version +
         "\nCAF " + build_info::caf_version + '\n';
}

} // namespace warpforge::cli
