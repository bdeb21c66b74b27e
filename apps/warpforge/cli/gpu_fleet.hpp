#pragma once
// The GPUs a command measures on: which the host has (asked of one unpinned runner) and which the
// user chose (--gpus). The pipeline then gives each chosen GPU its gpu_worker (actors/runtime).
//
//   auto fleet = discover_gpus(options.gpus);        // error: --gpus names a GPU not here
//   for (int ordinal : fleet->chosen) use(fleet->device(ordinal));

#include "foundation/expected/expected.hpp"
#include "gpu/device_report.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::cli {

struct gpu_fleet {
  std::filesystem::path runner;        // the runner executable (empty when none was found)
  std::optional<gpu::host_report> host; // what the runner said (none: it did not answer)
  std::vector<int> chosen;             // ordinals to use, in --gpus order
  std::string why_none;                // when nothing is usable: the runner's or the host's reason

  bool usable() const { return !chosen.empty(); }
  const gpu::device_info& device(int ordinal) const;
};

/// Asks the host's GPUs and picks `gpus_option` ("all" or "0,2") among them. No GPU is not an
/// error (usable() is false, why_none says why); a --gpus naming a GPU this host lacks is.
expected<gpu_fleet, std::string> discover_gpus(const std::string& gpus_option);

/// Which ordinals `text` names among `device_count`: "all", or a comma list.
expected<std::vector<int>, std::string> choose_gpus(const std::string& text, int device_count);

/// What a newcomer reads when nothing could be measured here, two lines on stderr: why (the short
/// reason, once) with `done` (what was done instead, where it is recorded), then what to do next.
void say_no_gpu(std::string_view verb, std::string_view why_none, std::string_view done);

/// The second of those lines, for tests and docs.
inline constexpr std::string_view no_gpu_next_step =
  "next: build the bundle with scripts/bundle.sh and run it on a GPU node; see docs/deploy.md";

} // namespace warpforge::cli
