#include "gpu/compile/include_check.hpp"

#include "gpu/compile/file_references.hpp"

#include <algorithm>
#include <cctype>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

namespace warpforge::gpu {
namespace {

// Whether a relative path climbs above where it starts ("a/../../b" does, "a/../b" does not).
bool climbs_out(std::string_view path) {
  int depth = 0;
  while (!path.empty()) {
    const auto slash = path.find('/');
    const auto part = path.substr(0, slash);
    if (part == "..")
      --depth;
    else if (!part.empty() && part != ".")
      ++depth;
    if (depth < 0)
      return true;
    if (slash == std::string_view::npos)
      break;
    path.remove_prefix(slash + 1);
  }
  return false;
}

// "line 3 column 1" of a byte offset in the source.
std::string place_of(std::string_view source, std::size_t offset) {
  offset = std::min(offset, source.size());
  const auto before = source.substr(0, offset);
  const auto line = 1 + std::count(before.begin(), before.end(), '\n');
  const auto line_start = before.rfind('\n');
  const auto column = offset - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
  return "line " + std::to_string(line) + " column " + std::to_string(column);
}

// The reference as the preprocessor reads it: #include "a.h", __has_include(<a.h>), import "a.h".
std::string spelled(const file_reference& reference) {
  if (reference.keyword.starts_with("__has_"))
    return reference.keyword + (reference.literal ? "(" + reference.target + ")" : "");
  return (reference.has_hash ? "#" : "") + reference.keyword + " " + reference.target;
}

std::optional<std::string> reference_refusal(const file_reference& reference, bool may_climb = false) {
  if (!reference.literal) {
    const bool operator_piece = reference.keyword.starts_with("__has") &&
                                reference.keyword != "__has_include" &&
                                reference.keyword != "__has_include_next" && reference.keyword != "__has_embed";
    if (operator_piece)
      return "a piece of __has_include or __has_embed (joined with ## it would test a file "
             "this check cannot see); do not test for files";
    return "a file must be named in quotes or angle brackets right after " +
           (reference.has_hash ? "#" + reference.keyword : reference.keyword) +
           " (a macro cannot be checked)";
  }
  const auto path = std::string_view{reference.target}.substr(1, reference.target.size() - 2);
  if (may_climb && !path.empty() && !path.starts_with('/') && path.find('\\') == std::string_view::npos)
    return std::nullopt; // a header's "../x.h": where it lands is checked (walk_included_headers)
  return path_refusal(path);
}

// include_refusal's rules over `text`; `may_climb`: a relative path may use "..".
std::optional<std::string> text_refusal(std::string_view text, bool may_climb) {
  for (const auto reading : every_reading) {
    const auto scan = scan_file_references(text, reading);
    for (const auto& reference : scan.references)
      if (auto reason = reference_refusal(reference, may_climb))
        return place_of(text, reference.offset) + ": " + spelled(reference) + ": " + *reason;
    if (scan.problem)
      return place_of(text, scan.problem->offset) + ": " + std::string{describe(scan.problem->fault)};
  }
  return std::nullopt;
}

// A path's parts with "." and empty parts dropped and "a/.." folded ("../x" keeps its "..").
struct normal_path {
  bool absolute = false;
  std::vector<std::string_view> parts;
};

normal_path normalised(std::string_view path) {
  normal_path out;
  out.absolute = path.starts_with('/');
  while (!path.empty()) {
    const auto slash = path.find('/');
    const auto part = path.substr(0, slash);
    if (part == ".." && !out.parts.empty() && out.parts.back() != "..")
      out.parts.pop_back();
    else if (!part.empty() && part != "." && !(part == ".." && out.absolute))
      out.parts.push_back(part);
    if (slash == std::string_view::npos)
      break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// Whether `file` lies inside `folder`, lexically (as NVRTC prints it: the -I folder, '/', the
// name): ".." may not climb back out of it.
bool inside(std::string_view file, std::string_view folder) {
  const auto f = normalised(file);
  const auto d = normalised(folder);
  return f.absolute == d.absolute && f.parts.size() > d.parts.size() &&
         std::equal(d.parts.begin(), d.parts.end(), f.parts.begin()) &&
         std::find(f.parts.begin() + static_cast<std::ptrdiff_t>(d.parts.size()), f.parts.end(), "..") ==
           f.parts.end();
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  return text;
}

// The file a diagnostic line starts with ("kernel.cu(12): error: ..." gives kernel.cu).
std::optional<std::string_view> diagnostic_file(std::string_view line) {
  if (line.empty() || std::isspace(static_cast<unsigned char>(line.front())))
    return std::nullopt;
  for (auto open = line.find('('); open != std::string_view::npos; open = line.find('(', open + 1)) {
    std::size_t i = open + 1;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])))
      ++i;
    if (i > open + 1 && line.substr(i, 3) == "): ")
      return line.substr(0, open);
  }
  return std::nullopt;
}

// The files of "at line 12 of some/file.h" in an instantiation context line.
std::vector<std::string_view> context_files(std::string_view line) {
  std::vector<std::string_view> out;
  constexpr std::string_view at_line = "at line ";
  for (auto at = line.find(at_line); at != std::string_view::npos; at = line.find(at_line, at + 1)) {
    std::size_t i = at + at_line.size();
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])))
      ++i;
    if (line.substr(i, 4) == " of ")
      out.push_back(trimmed(line.substr(i + 4)));
  }
  return out;
}

bool allowed_in_log(std::string_view file, std::string_view source_name, const include_roots& roots) {
  if (file == source_name)
    return true;
  if (std::any_of(roots.files.begin(), roots.files.end(), [&](const auto& f) { return file == f; }))
    return true;
  if (std::any_of(roots.folders.begin(), roots.folders.end(), [&](const auto& d) { return inside(file, d); }))
    return true;
  return !path_refusal(file).has_value();
}

std::string shortened(std::string_view text) {
  return text.size() <= max_quoted_bytes ? std::string{text}
                                         : std::string{text.substr(0, max_quoted_bytes - 3)} + "...";
}

namespace fs = std::filesystem;

// Whether `file` is `folder` or below it; both canonical (symbolic links resolved).
bool canonically_inside(const fs::path& file, const fs::path& folder) {
  const auto [f, d] = std::mismatch(file.begin(), file.end(), folder.begin(), folder.end());
  return d == folder.end() || (std::next(d) == folder.end() && d->empty()); // "a/b/" ends with ""
}

// Each literal file name `text` gives the preprocessor, under every reading, once, in order.
std::vector<file_reference> named_files(std::string_view text) {
  std::vector<file_reference> out;
  std::set<std::string, std::less<>> seen;
  for (const auto reading : every_reading)
    for (auto& reference : scan_file_references(text, reading).references)
      if (reference.literal && seen.insert(reference.target.substr(1, reference.target.size() - 2)).second)
        out.push_back(std::move(reference));
  return out;
}

// Where NVRTC finds a file a directive names: for "quotes" the including file's own folder first,
// then the -I folders in order; for <angle brackets> the -I folders only (as the preprocessor
// does: looking in the own folder first could walk and key a file NVRTC never reads, and miss the
// one it does).
struct resolution {
  fs::path lexical;   // <folder>/<name>, normalised, as NVRTC opens it; empty: found nowhere
  fs::path canonical; // links resolved
  bool inside = false; // canonical lies inside one of the -I folders
  bool regular = false;
};

resolution resolve(std::string_view name, bool angled, const fs::path& own_folder,
                   const std::vector<fs::path>& roots) {
  std::vector<fs::path> folders;
  if (!angled)
    folders.push_back(own_folder);
  folders.insert(folders.end(), roots.begin(), roots.end());
  for (const auto& folder : folders) {
    const fs::path lexical = (folder / std::string{name}).lexically_normal();
    std::error_code ec;
    const auto status = fs::status(lexical, ec);
    if (ec || !fs::exists(status))
      continue;
    resolution out{lexical, fs::canonical(lexical, ec), false, fs::is_regular_file(status)};
    if (ec)
      continue;
    out.inside = std::any_of(roots.begin(), roots.end(),
                             [&](const fs::path& r) { return canonically_inside(out.canonical, r); });
    return out;
  }
  return {};
}

} // namespace

header_walk walk_included_headers(std::string_view source, std::string_view source_name,
                                  std::span<const std::string> search_folders,
                                  std::span<const std::string> walked_folders) {
  header_walk out;
  auto canonical_folders = [](std::span<const std::string> folders) {
    std::vector<fs::path> canonical;
    for (const auto& folder : folders) {
      std::error_code ec;
      auto root = fs::canonical(folder, ec);
      if (!ec)
        canonical.push_back(std::move(root));
    }
    return canonical;
  };
  const auto roots = canonical_folders(search_folders);
  const auto walked = canonical_folders(walked_folders);
  struct pending {
    std::string label;  // "" for the source, else the header's path
    fs::path folder;    // where its own "..." includes are looked for first
    std::string text;
  };
  std::error_code ec;
  const fs::path source_folder = fs::absolute(fs::path{std::string{source_name}}, ec).parent_path();
  std::deque<pending> queue{{"", source_folder, std::string{source}}};
  std::set<fs::path> seen;
  while (!queue.empty() && !out.refusal) {
    const pending file = std::move(queue.front());
    queue.pop_front();
    if (!file.label.empty())
      if (auto refusal = text_refusal(file.text, true)) {
        out.refusal = file.label + ": " + *refusal;
        break;
      }
    const std::string prefix = file.label.empty() ? "" : file.label + ": ";
    for (const auto& reference : named_files(file.text)) {
      const auto name = std::string_view{reference.target}.substr(1, reference.target.size() - 2);
      const auto found = resolve(name, reference.target.front() == '<', file.folder, roots);
      if (found.lexical.empty() || !found.regular)
        continue; // a header NVRTC carries, or one NVRTC will say it cannot open
      const std::string where = prefix + place_of(file.text, reference.offset) + ": " + spelled(reference) + ": ";
      if (!found.inside) {
        out.refusal = where + "NVRTC would read " + found.lexical.string() +
                      ", which lies outside the include folders" +
                      (file.label.empty() && found.lexical.parent_path() == source_folder
                         ? " (the working folder, searched first for the source's own includes)"
                         : " (after resolving symbolic links)");
        break;
      }
      const bool project = std::any_of(walked.begin(), walked.end(),
                                       [&](const fs::path& r) { return canonically_inside(found.canonical, r); });
      if (!project || !seen.insert(found.canonical).second)
        continue; // a system folder's header (the toolkit's) is NVRTC's to read; or seen already
      if (out.headers.size() >= max_included_headers) {
        out.refusal = where + "more than " + std::to_string(max_included_headers) + " headers are included";
        break;
      }
      const auto size = fs::file_size(found.canonical, ec);
      if (ec || size > max_header_bytes) {
        out.refusal = where + found.lexical.string() +
                      (ec ? " cannot be read" : " is larger than " + std::to_string(max_header_bytes) + " bytes");
        break;
      }
      std::ifstream in{found.canonical, std::ios::binary};
      std::string text{std::istreambuf_iterator<char>{in}, {}};
      if (!in.good() && !in.eof()) {
        out.refusal = where + found.lexical.string() + " cannot be read";
        break;
      }
      out.headers.push_back({found.lexical.string(), text});
      queue.push_back({found.lexical.string(), found.lexical.parent_path(), std::move(text)});
    }
  }
  return out;
}

std::optional<std::string> path_refusal(std::string_view path) {
  if (path.empty())
    return "names no file";
  if (path.starts_with('/') || path.find('\\') != std::string_view::npos)
    return "only relative paths inside the problem's folder, or CUDA headers, may be included";
  if (climbs_out(path))
    return "the path climbs out of the problem's folder with \"..\"";
  return std::nullopt;
}

std::optional<std::string> include_refusal(std::string_view source) { return text_refusal(source, false); }

include_roots allowed_include_roots(std::span<const std::string> options) {
  include_roots out;
  for (std::size_t i = 0; i < options.size(); ++i) {
    const std::string_view option = options[i];
    const bool has_next = i + 1 < options.size();
    if (option == "-I" || option == "--include-path") {
      if (has_next)
        out.folders.push_back(options[++i]);
    } else if (option == "-include" || option == "--pre-include") {
      if (has_next)
        out.files.push_back(options[++i]);
    } else if (option.starts_with("--include-path=")) {
      out.folders.emplace_back(option.substr(15));
    } else if (option.starts_with("--pre-include=")) {
      out.files.emplace_back(option.substr(14));
    } else if (option.starts_with("-include=")) {
      out.files.emplace_back(option.substr(9));
    } else if (option.starts_with("-I")) {
      out.folders.emplace_back(option.substr(2));
    }
  }
  return out;
}

std::optional<std::string> log_file_refusal(std::string_view log, std::string_view source_name,
                                            const include_roots& roots) {
  while (!log.empty()) {
    const auto end = log.find('\n');
    const auto line = log.substr(0, end);
    log.remove_prefix(end == std::string_view::npos ? log.size() : end + 1);
    std::vector<std::string_view> files = context_files(line);
    if (const auto file = diagnostic_file(line))
      files.push_back(*file);
    for (const auto file : files)
      if (!allowed_in_log(file, source_name, roots))
        return "NVRTC's log names \"" + shortened(file) +
               "\", a file outside the problem's include folders and the CUDA headers: the "
               "source names a file the include check did not see, so the compile is refused "
               "and its log withheld";
  }
  return std::nullopt;
}

} // namespace warpforge::gpu
