#pragma once
// The diagnoser's step: a launch's metric set and the GPU it ran on -> the full diagnosis
// (diagnosis::diagnose) and its summary. The metric set is kept in the run directory as JSON
// (metrics-gpu<N>.json in the branch's folder), so `warpforge diagnose` prints the full diagnosis
// from what was recorded, and a later reader can re-derive it.

#include "diagnosis/diagnose.hpp"
#include "foundation/expected/expected.hpp"
#include "gpu/device_report.hpp"
#include "gpu/profiling/metric_collection.hpp"
#include "pipeline/diagnosis_summary.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace warpforge::pipeline {

/// What the runner reported about a device, as diagnosis reads it (0: not reported).
diagnosis::device_properties properties_of(const gpu::device_info& device);

/// The diagnosis of `metrics` taken on `device`; none when no counter was read.
std::optional<diagnosis::diagnosis> diagnose_metrics(const gpu::metric_set& metrics, const gpu::device_info& device);

/// The summary the pipeline carries: diagnosed, or not (with the metric set's note as why).
diagnosis_summary summarize_metrics(const gpu::metric_set& metrics, const gpu::device_info& device, const branch_ref& of);

/// A kept metric set: the values, their source and note, and the device they were taken on.
struct metric_file {
  gpu::metric_set metrics;
  gpu::device_info device;
};

/// Writes `file` as JSON; the error names the path. A device whose counter access was not probed
/// is written readable when the profile read a counter.
expected<void, std::string> write_metric_file(const std::filesystem::path& path, const metric_file& file);
/// Reads what write_metric_file wrote; the error names the path and the field.
expected<metric_file, std::string> read_metric_file(const std::filesystem::path& path);

} // namespace warpforge::pipeline
