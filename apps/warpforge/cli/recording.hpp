#pragma once
// How every command that records starts: a fresh (or reopened) run directory, its log file, and
// the actor system recording into it (supervisor, store, feed, and, for the commands that run a
// campaign, the whole pipeline, or a calibrate campaign's gpu_workers and calibrator).

#include "actors/runtime.hpp"
#include "apps/warpforge/cli/exit_codes.hpp"
#include "config/supervision_policy.hpp"
#include "foundation/expected/expected.hpp"
#include "feed/publisher.hpp"
#include "storage/run_directory.hpp"
#include "storage/run_owner.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::cli {

struct recording {
  storage::run_directory dir;
  storage::run_owner owner; // held until after the runtime has stopped (members end in reverse)
  std::unique_ptr<actors::runtime> runtime;
};

struct recording_failure {
  exit_code code = exit_code::failure; // bad_input when the run directory cannot be made
  std::string message;                 // names the step and the reason
};

/// Creates `<root>/<name>-<UTC time>/`, claims it (storage/run_owner.hpp), adds its log file, and
/// boots the runtime publishing with `feed` (the endpoint is also written to
/// `<run-dir>/feed.endpoint` for `tail`). `command` is what the claim says is running.
expected<recording, recording_failure> start_recording(const std::filesystem::path& root, std::uint32_t run_dir_mode,
                                                       const std::string& name, std::string_view command,
                                                       feed::publisher_options feed,
                                                       config::supervision_policy supervision,
                                                       std::optional<actors::pipeline_options> pipeline = std::nullopt,
                                                       std::optional<actors::calibrator_config> calibrate = std::nullopt);

/// The same on an existing run directory (resume): its database and feed seq continue. Refused
/// (failure, "campaign is running (pid N: ...)") while another process holds the directory.
expected<recording, recording_failure> resume_recording(const std::filesystem::path& run_dir,
                                                        const std::string& name, std::string_view command,
                                                        feed::publisher_options feed,
                                                        config::supervision_policy supervision,
                                                        std::optional<actors::pipeline_options> pipeline = std::nullopt,
                                                        std::optional<actors::calibrator_config> calibrate = std::nullopt);

} // namespace warpforge::cli
