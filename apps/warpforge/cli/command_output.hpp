#pragma once
// What --quiet and --json mean for every command that runs something (run, resume, calibrate,
// bench): one process runs one command, so these are process-wide switches set by app.cpp
// before the command starts.
//
//   --quiet  the terminal shows only warnings and errors: the log's info lines, the banner, the
//            progress, the footer and the result tables are left out (the run directory's
//            logs/warpforge.log keeps every line; the exit code says how it went).
//   --json   stdout carries exactly one JSON object naming the run directory and the outcome,
//            printed when the command ends; the human text (including anything the command or its
//            children would have written on stdout) goes to stderr.

#include "apps/warpforge/cli/exit_codes.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace warpforge::cli {

/// --quiet: from now on the console shows warnings and errors only.
void enter_quiet_mode();
/// Whether --quiet was given (the commands leave out their banners and tables).
bool quiet_mode();

/// The run directory the command is recording into, for the --json object (called where a
/// run directory is created or reopened).
void note_run_directory(const std::filesystem::path& dir);

/// What the --json object says about an exit code: finished, failed, usage_error, bad_input,
/// not_available, no_gpu, interrupted.
std::string_view outcome_name(exit_code code);

/// Runs `command` with stdout reserved for one JSON object when `json` is set:
/// {"command":"run","run_dir":"/abs/runs/x-20261127-091606"|null,"outcome":"finished","exit_code":0}.
/// Without `json` it just runs it.
exit_code run_with_json_result(std::string_view verb, bool json, const std::function<exit_code()>& command);

} // namespace warpforge::cli
