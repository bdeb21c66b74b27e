#pragma once
// Which files a kernel source may #include: relative paths that stay inside the folders NVRTC is
// given (the problem's folder) and the CUDA headers NVRTC carries. An absolute path or one that
// climbs out with ".." is refused before NVRTC reads it, since NVRTC would copy a line of any file
// the process can read (/etc/passwd, a key) into its error log, and from there into compile.log,
// the store, summary.md and the events. An #include whose file is a macro is refused too: what
// it names cannot be checked before preprocessing.
//
//   if (auto refusal = include_refusal(request.source)) return compile_error(*refusal);

#include <optional>
#include <string>
#include <string_view>

namespace warpforge::gpu {

/// Why `source` may not be compiled ("line 3: #include "/etc/passwd": ..."); nullopt when every
/// #include is a relative path inside the include folders or a header in angle brackets.
std::optional<std::string> include_refusal(std::string_view source);

} // namespace warpforge::gpu
