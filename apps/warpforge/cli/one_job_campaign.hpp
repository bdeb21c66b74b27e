#pragma once
// bench and diagnose run one problem through the same pipeline as a campaign: this is that
// campaign, a spec of one job written for the problem and validated like any other (the problem's
// own errors come back placed in its file).

#include "config/toml_reader/placed_error.hpp"
#include "config/campaign_spec.hpp"
#include "foundation/expected/expected.hpp"

#include <string>

namespace warpforge::cli {

/// The one-job campaign `name` for `problem_path`, recording under `run_root`, publishing on a
/// free loopback port (never a running campaign's).
expected<config::campaign_spec, toml_reader::placed_errors> one_job_campaign(const std::string& name,
                                                                     const std::string& problem_path,
                                                                     const std::string& run_root);

} // namespace warpforge::cli
