#pragma once
// `warpforge calibrate`'s notes commands (docs/calibrate.md, "Notes"): --defer, --retry,
// --annotate, --backlog edit the notes file (calibrate/notes.hpp) and --progress reads it with a
// run directory's results.json. Each prints what it did and exits; nothing is measured.

#include "apps/warpforge/cli/commands.hpp"

#include <filesystem>

namespace warpforge::cli {

/// Whether `options` asks for a notes command rather than a run.
bool wants_notes_command(const calibrate_options& options);

/// Where a notes command reads and writes: resolved by calibrate() (a --resume's recorded spec
/// may name them).
struct notes_command_files {
  std::filesystem::path notes;   // the notes file (a missing one is empty notes)
  std::filesystem::path catalog; // a catalog file; empty: the built-in one
};

/// Runs the notes command `options` asks for. Exit 2 for an unknown parameter (with a "did you
/// mean"), 3 for an unreadable catalog, notes or results.json, 1 when the notes cannot be saved.
exit_code calibrate_notes_command(const calibrate_options& options, const notes_command_files& files);

} // namespace warpforge::cli
