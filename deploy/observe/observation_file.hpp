#pragma once
// The observation cache: what one observed run of a program recorded, kept as
// `<cache_dir>/<kernel or "all">.observed.json` and reused while the program's signature is the
// same (issue 13: "Cached in a JSON file keyed by the kernel's signature").
//
//   auto sig = observation_signature({exe, argv, "transpose", {}});
//   auto cached = read_observation(observation_path(cache_dir, "transpose"));
//   if (cached && cached->signature == *sig) reuse(*cached);   // else observe again
//
// The file: {"schema":"warpforge.observation/1","kernel","signature","captured_at","method",
// "command":[...],"workdir","exit","wall_s","options":{split_ratio,coverage,top_k},
// "launches":[<launch>...],"representative":[<kernel selection>...],"notes":[...]}, where a launch
// is the launch log's object (seq, kernel, demangled, grid, block, smem, duration_ns, device,
// params) and a kernel selection carries its configs (deploy/observe/README.md has an example).
// Written whole or not at all (files::write_file_atomically); read with simdjson.

#include "foundation/expected/expected.hpp"
#include "deploy/observe/launches/launch_record.hpp"
#include "deploy/observe/representative.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::observe {

inline constexpr std::string_view observation_schema = "warpforge.observation/1";
/// The file name's stem when every kernel was observed.
inline constexpr std::string_view all_kernels_stem = "all";

struct observation {
  std::string kernel;                // as the user named it; "" = every kernel
  std::string signature;             // observation_signature(), 64 hex digits
  std::string captured_at;           // UTC, ISO 8601 ("2026-11-25T22:10:03Z")
  std::string method;                // "cupti" or "ncu"
  std::vector<std::string> command;  // argv as run (argv[0] resolved)
  std::string workdir;               // where it ran
  std::string exit;                  // how it ended ("exit code 0")
  double wall_s = 0.0;               // seconds the run took
  representative_options options;    // of the selection below
  std::vector<launch_record> launches;           // in launch order
  std::vector<kernel_selection> representative;  // per kernel, in order of first launch
  std::vector<std::string> notes;    // the launch path's and the selection's notes
};

/// The largest argument file whose bytes the signature hashes, bytes. An argument naming a larger
/// regular file (a data set, a model) is keyed by its size and modification time instead, and
/// signature_notes() says so: hashing gigabytes on every `observe` would cost more than it saves.
inline constexpr std::uintmax_t max_hashed_argument_bytes = 16ull * 1024 * 1024;

/// What makes an observation stale: any change of these re-observes.
struct signature_inputs {
  std::filesystem::path executable;       // the program's file (its bytes are hashed)
  std::vector<std::string> arguments;     // argv[1..]; each naming a regular file: its bytes too
  std::string kernel;                     // as named; "" = every kernel
  std::vector<std::filesystem::path> sources; // --source files (their bytes are hashed)
  std::filesystem::path workdir;          // where the program runs: relative arguments name files
                                          // from here ("" = the current directory)
};

/// SHA-256 (hex) over the executable's bytes, the arguments, the content of every argument that
/// names an existing regular file (a script run by an interpreter, `-- /bin/sh app.sh`, or a
/// config file; above max_hashed_argument_bytes its size and mtime), the kernel name and each
/// source's bytes, each a length-prefixed field. An error names a file that cannot be read.
expected<std::string, std::string> observation_signature(const signature_inputs& inputs);

/// One note per argument file keyed by size and mtime rather than its bytes (larger than
/// max_hashed_argument_bytes): an edit that keeps both would not be seen. Empty when none.
std::vector<std::string> signature_notes(const signature_inputs& inputs);

/// `<cache_dir>/<kernel or "all">.observed.json`; characters a file name should not hold
/// (anything but [A-Za-z0-9_.-]) become '_'.
std::filesystem::path observation_path(const std::filesystem::path& cache_dir, std::string_view kernel);

/// The file's JSON text.
std::string to_json(const observation& observed);

/// Writes `observed` to `path` (creating its folder); the error names the step and the file.
expected<void, std::string> write_observation(const std::filesystem::path& path, const observation& observed);

/// Reads an observation file; an error names the file and the key that is wrong.
expected<observation, std::string> read_observation(const std::filesystem::path& path);
/// The same, from text (`origin` names it in errors).
expected<observation, std::string> parse_observation(std::string_view text, std::string_view origin);

/// Why a cached observation cannot be reused ("the signature changed: the program, its arguments,
/// a file an argument names, the kernel name or a --source file differ"); nullopt when it can.
std::optional<std::string> stale_reason(const observation& cached, std::string_view signature);

} // namespace warpforge::observe
