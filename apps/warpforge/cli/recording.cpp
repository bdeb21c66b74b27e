#include "apps/warpforge/cli/recording.hpp"

#include "apps/warpforge/cli/user_errors.hpp"

#include "foundation/logging/logging.hpp"

#include <chrono>

namespace warpforge::cli {

namespace {

expected<recording, recording_failure> boot(storage::run_directory dir, std::string_view command,
                                            const std::string& name,
                                            feed::publisher_options feed,
                                            config::supervision_policy supervision,
                                            std::optional<actors::pipeline_options> pipeline,
                                            std::optional<actors::calibrator_config> calibrate) {
  auto owner = storage::run_owner::claim(dir, command);
  if (!owner)
    return unexpected{recording_failure{exit_code::failure, owner.error().message}};
  logging::add_file_sink(dir.logs_dir() / "warpforge.log");
  logging::get("campaign")->info("run directory {}", dir.path().string());
  actors::runtime_options options;
  options.database = dir.database_path();
  options.feed.publisher = std::move(feed);
  options.feed.campaign = name;
  options.feed.endpoint_file = dir.feed_endpoint_path();
  options.feed.database = dir.database_path(); // replay over the network is served from it
  options.feed.replay_endpoint_file = dir.replay_endpoint_path();
  options.supervision = supervision;
  options.pipeline = std::move(pipeline);
  options.calibrate = std::move(calibrate);
  options.deployer = true; // `warpforge deploy`, and a campaign that deploys at its end
  auto rt = actors::runtime::start(options);
  if (!rt) {
    logging::get("campaign")->error("cannot start: {}", rt.error());
    return unexpected{recording_failure{exit_code::failure, "cannot start: " + rt.error()}};
  }
  return recording{std::move(dir), std::move(*owner), std::move(*rt)};
}

} // namespace

expected<recording, recording_failure> start_recording(const std::filesystem::path& root, std::uint32_t run_dir_mode,
                                                       const std::string& name, std::string_view command,
                                                       feed::publisher_options feed,
                                                       config::supervision_policy supervision,
                                                       std::optional<actors::pipeline_options> pipeline,
                                                       std::optional<actors::calibrator_config> calibrate) {
  auto dir = storage::run_directory::create(root, name, std::chrono::system_clock::now(), run_dir_mode);
  if (!dir)
    return unexpected{recording_failure{exit_code::bad_input, user_message(dir.error())}};
  return boot(std::move(*dir), command, name, std::move(feed), supervision, std::move(pipeline), std::move(calibrate));
}

expected<recording, recording_failure> resume_recording(const std::filesystem::path& run_dir,
                                                        const std::string& name, std::string_view command,
                                                        feed::publisher_options feed,
                                                        config::supervision_policy supervision,
                                                        std::optional<actors::pipeline_options> pipeline,
                                                        std::optional<actors::calibrator_config> calibrate) {
  auto dir = storage::run_directory::open(run_dir);
  if (!dir)
    return unexpected{recording_failure{exit_code::bad_input, user_message(dir.error())}};
  return boot(std::move(*dir), command, name, std::move(feed), supervision, std::move(pipeline), std::move(calibrate));
}

} // namespace warpforge::cli
