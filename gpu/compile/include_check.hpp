#pragma once
// Which files a kernel source may name for the preprocessor: relative paths that stay inside the
// folders NVRTC is given (the problem's -I folders: walk_included_headers checks where each name
// lands, the working folder NVRTC searches first for the source's "..." includes included). An absolute
// path, one with a backslash, or one that climbs out with ".." is refused before NVRTC reads it,
// since NVRTC copies lines of the file it includes (/etc/passwd, a key) into its error log, and
// from there into compile.log, the store, the model's fix_compile prompt and the events. A file
// named by a macro is refused too: what it names cannot be checked before preprocessing.
//
// The check reads the source as the preprocessor does (file_references.hpp: line splices,
// comments, digraphs, trigraphs, literals, raw strings), under every reading a -std flag could
// choose: #include, #include_next, #import, #embed, __has_include, __has_include_next and
// __has_embed (which tell whether a file exists) all follow the same rule.
//
// After NVRTC, as defence in depth, log_file_refusal checks every file its log names (NVRTC 13
// has no dependency output, -MD/-M/--generate-dependencies are refused as unknown options): one
// outside the allowed set means something got past the check, and the log is withheld.
//
//   if (auto refusal = include_refusal(request.source)) return compile_error(*refusal);
//   ... compile ...
//   if (auto refusal = log_file_refusal(log, request.source_name, allowed_include_roots(options)))
//     return compile_error(*refusal);   // never the log itself

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::gpu {

/// Why `source` may not be compiled ("line 3 column 1: #include "/etc/passwd": only relative
/// paths..."), quoting only the source; nullopt when every file it names is allowed.
std::optional<std::string> include_refusal(std::string_view source);

/// Why `path` (a header name without its delimiters) is not allowed; nullopt when it is.
std::optional<std::string> path_refusal(std::string_view path);

/// A header a kernel includes from the project's include folders: what NVRTC reads, and what
/// the compile cache's key holds (so editing a header is a new key).
struct included_header {
  std::string path; // where NVRTC finds it: <include folder>/<name as written>, normalised
  std::string text; // its bytes
};

/// The most headers one compile may read from the include folders, and the most bytes one may
/// hold: bounds on what a kernel (or a model's) can make the coordinator read.
inline constexpr std::size_t max_included_headers = 1000;
inline constexpr std::size_t max_header_bytes = 4u << 20; // bytes

struct header_walk {
  std::vector<included_header> headers;  // in the order they were first named
  std::optional<std::string> refusal;    // why the compile is refused; the walk stops there
};

/// Every header that `source` names, directly or through a header it names, found where NVRTC
/// finds it: the including file's own folder first (the source's is the folder of `source_name`,
/// the working folder for a bare name), then `search_folders` (the -I folders) in order. The
/// first existing file is what NVRTC reads: it must lie inside one of the search folders after
/// resolving symbolic links, else the compile is refused naming the place ("kernel.cu: line 1
/// column 1: #include "config.h": NVRTC would read /app/include/config.h, which lies outside the
/// include folders ..."), never quoting the file. A name found nowhere is left to NVRTC (it says
/// it cannot open it). Headers inside `walked_folders` (the problem's include_dirs) are read,
/// listed and followed: each passes include_refusal's rules too, except that a relative path may
/// use ".." (where it lands is what is checked). Headers of the other search folders (the
/// toolkit's, -I in the flags) are NVRTC's to read, as before. The source itself is checked by
/// include_refusal.
header_walk walk_included_headers(std::string_view source, std::string_view source_name,
                                  std::span<const std::string> search_folders,
                                  std::span<const std::string> walked_folders);

/// What a compile's options allow files to come from: each -I / --include-path folder and each
/// -include / --pre-include file, as written.
struct include_roots {
  std::vector<std::string> folders;
  std::vector<std::string> files;
};
include_roots allowed_include_roots(std::span<const std::string> options);

/// Why a compiler log that names a file outside the allowed set (the source itself, a file
/// inside an include root, a relative path `path_refusal` allows) must be withheld; the reason
/// names the file, never a line of the log. nullopt when every file it names is allowed.
std::optional<std::string> log_file_refusal(std::string_view log, std::string_view source_name,
                                            const include_roots& roots);

} // namespace warpforge::gpu
