// `warpforge report <run-dir> [--format md|json|csv|kerneltuner] [--write]`: the campaign's report
// from its store, on stdout (kerneltuner: a Kernel Tuner cache file per job in the run directory,
// their paths on stdout); works while the campaign runs (the store is read in snapshots) and after.

#include "apps/warpforge/cli/commands.hpp"
#include "apps/warpforge/cli/user_errors.hpp"

#include "report/campaign_report.hpp"
#include "report/kerneltuner_cache.hpp"

#include <iostream>

namespace warpforge::cli {

exit_code report(const report_options& options) {
  auto loaded = report::load_report(options.run_dir);
  if (!loaded) {
    std::cerr << "warpforge report: " << user_message(loaded.error()) << '\n';
    return exit_code::bad_input;
  }
  if (options.format == "kerneltuner") {
    // Kernel Tuner reads a cache file per kernel: one per job, written into the run directory.
    auto written = report::write_kerneltuner_caches(*loaded);
    if (!written) {
      std::cerr << "warpforge report: " << written.error() << '\n';
      return exit_code::failure;
    }
    for (const auto& file : *written)
      std::cout << (loaded->run_dir / file).string() << '\n';
  } else if (options.format == "json")
    std::cout << report::render_json(*loaded) << '\n';
  else if (options.format == "csv")
    std::cout << report::render_csv(*loaded);
  else
    std::cout << report::render_markdown(*loaded);
  if (options.write_summary) {
    auto written = report::write_summary(*loaded);
    if (!written) {
      std::cerr << "warpforge report: " << written.error() << '\n';
      return exit_code::failure;
    }
    for (const auto& file : *written)
      std::cerr << "wrote " << (loaded->run_dir / file).string() << '\n';
  }
  return exit_code::ok;
}

} // namespace warpforge::cli
