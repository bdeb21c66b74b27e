#include "calibrate/engine/report_files.hpp"

#include "calibrate/engine/run_files.hpp"
#include "calibrate/results/charts.hpp"
#include "calibrate/results/report.hpp"
#include "calibrate/results/simulator.hpp"

#include <system_error>
#include <utility>

namespace warpforge::calibrate {

namespace fs = std::filesystem;

fs::path curve_chart_path(const fs::path& run_dir, std::string_view parameter) {
  return run_dir / charts_folder / (std::string{parameter} + "-latency.svg");
}

expected<void, std::vector<std::string>> write_reports(const fs::path& run_dir,
                                                       const std::vector<parameter_result>& results,
                                                       const catalog& cat) {
  std::vector<std::pair<fs::path, std::string>> files{
    {run_dir / report_file, render_markdown(results, cat)},
    {run_dir / results_file, render_json(results)},
    {run_dir / measurements_file, render_tsv(results)},
    {run_dir / accel_sim_file, accel_sim_config(results)},
    {run_dir / gpgpu_sim_file, gpgpu_sim_config(results)},
    {run_dir / charts_folder / "cv.svg", cv_chart_svg(results)},
  };
  for (const auto& result : results)
    if (!result.curve.empty())
      files.emplace_back(curve_chart_path(run_dir, result.name), latency_curve_svg(result));
  std::vector<std::string> failed;
  for (const auto& [path, text] : files)
    if (auto written = write_file_atomically(path, text); !written)
      failed.push_back(written.error());
  if (!failed.empty())
    return unexpected{std::move(failed)};
  return {};
}

expected<std::vector<parameter_result>, std::string> read_results(const fs::path& run_dir) {
  const auto path = run_dir / results_file;
  std::error_code ec;
  if (!fs::exists(path, ec))
    return std::vector<parameter_result>{};
  auto text = read_whole_file(path);
  if (!text)
    return unexpected{"cannot read " + path.string()};
  auto results = read_json(*text);
  if (!results)
    return unexpected{path.string() + ": " + results.error()};
  return std::move(*results);
}

} // namespace warpforge::calibrate
