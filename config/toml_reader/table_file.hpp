#pragma once
// The frame every data-table loader shares (sass/: the method catalog and the SASS signature
// table; diagnosis/: the metric schema, the GPU table and the rule matrix): the file read, the
// TOML parsed, the root's keys checked, the loader's own reads, every error in file order; and the
// built-in copy, parsed once from the text embedded in the binary, whose failure is a broken build.
// The loader writes only what its table means:
//
//   expected<gpu_table, placed_errors> parse_gpu_table(std::string_view text, const std::string& file) {
//     gpu_table table;
//     auto read = toml_reader::read_document(text, file, root_keys,
//                                            [&](const toml::table& root, toml_reader::reader& fields) { ... });
//     if (!read)
//       return unexpected(std::move(read).error());
//     return table;
//   }
//   load_gpu_table(path):    return toml_reader::load_table(path, "the GPU table", parse_gpu_table);
//   builtin_gpu_table():     static const gpu_table t = toml_reader::builtin_table(parse_gpu_table(text, file), "GPU table");
//
// It brings in toml++ (through reader.hpp): include it from .cpp files only.

#include "config/toml_reader/placed_error.hpp"
#include "config/toml_reader/reader.hpp"
#include "foundation/expected/expected.hpp"

#include <filesystem>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace warpforge::toml_reader {

/// Parses `text` (called `file` in errors), reports every root key not in `root_keys`, and hands
/// the document and a reader that collects placed errors to `fill`. The errors, sorted by place:
/// the syntax error alone, or everything the reads found; none: what `fill` built is whole.
expected<void, placed_errors> read_document(std::string_view text, const std::string& file,
                                            std::span<const std::string_view> root_keys,
                                            const std::function<void(const toml::table& root, reader& fields)>& fill);

/// The file at `path` handed to `parse(text, file)`; a file that cannot be read is one placed
/// error naming it, `what` it is ("the GPU table") and why.
template <class Parse>
auto load_table(const std::filesystem::path& path, std::string_view what, Parse&& parse)
  -> decltype(parse(std::string_view{}, std::string{})) {
  auto text = read_file(path, what);
  if (!text)
    return unexpected(placed_errors{std::move(text).error()});
  return parse(*text, path.string());
}

/// The table parsed from the copy embedded in the binary. Its errors mean the build is broken (the
/// data files are tested): a std::logic_error naming `what` ("GPU table") and every error.
template <class Table>
Table builtin_table(expected<Table, placed_errors> parsed, std::string_view what) {
  if (!parsed)
    throw std::logic_error("the built-in " + std::string{what} + " does not load:\n" + to_string(parsed.error()));
  return std::move(*parsed);
}

} // namespace warpforge::toml_reader
