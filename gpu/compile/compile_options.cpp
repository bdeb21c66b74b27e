#include "gpu/compile/compile_options.hpp"

namespace warpforge::gpu {

std::vector<std::string> canonical_options(const compile_request& request) {
  std::vector<std::string> options;
  options.reserve(3 + request.include_dirs.size() + request.defines.size() +
                  request.extra_flags.size());
  options.push_back("--gpu-architecture=" + request.arch);
  options.push_back("--std=" + request.std);
  if (request.line_info)
    options.emplace_back("-lineinfo");
  for (const auto& dir : request.include_dirs)
    options.push_back("-I" + dir);
  for (const auto& define : request.defines)
    options.push_back(define.value.empty() ? "-D" + define.name
                                           : "-D" + define.name + "=" + define.value);
  options.insert(options.end(), request.extra_flags.begin(), request.extra_flags.end());
  return options;
}

std::string join_options(const std::vector<std::string>& options) {
  std::string text;
  for (const auto& option : options) {
    if (!text.empty())
      text += ' ';
    text += option;
  }
  return text;
}

} // namespace warpforge::gpu
