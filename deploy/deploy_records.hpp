#pragma once
// What a deploy leaves in the run: the store records and the feed events of its steps and its
// end. Plain functions; the deployer actor sends what they return (the library itself only talks
// to its sink). docs/events.md lists the events' detail fields.

#include "deploy/run_deploy.hpp"
#include "feed/event.hpp"
#include "storage/records.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warpforge::deploy {

/// The deployments row of `request` (work_dir and log paths relative to request.run_dir).
storage::deployment_record deployment_row(const deploy_request& request);
/// The deploy_steps row of the `seq`-th record (1-based) of the deployment in `work_dir`.
storage::deploy_step_record step_row(const deploy_request& request, std::int64_t seq,
                                     const step_record& record);
/// The deployment's end.
storage::deployment_result result_row(const deploy_request& request, const deploy_report& report);

/// The end of the deploy a recovery closed (outcome interrupted), when it was recorded in the
/// same run as the recovery; none otherwise.
std::optional<storage::deployment_result> interrupted_row(const deploy_request& request, const deploy_report& report);

/// deploy_step: job, step, status, detail, seconds, attempt, log and (timing steps) the timing.
feed::event step_event(const step_record& record);
/// deploy_finished: job, outcome, reason, champion, before/after medians and spreads, unit, and
/// (once timed) kernels: every kernel before and after, or the note that none was (kernel_times.hpp).
feed::event finished_event(const deploy_request& request, const deploy_report& report);

/// `path` relative to `run_dir` when inside it, else as is (for rows and events).
std::string relative_to_run(const std::filesystem::path& run_dir, const std::filesystem::path& path);

} // namespace warpforge::deploy
