#include "apps/warpforge/cli/one_job_campaign.hpp"

#include <filesystem>

namespace warpforge::cli {

namespace fs = std::filesystem;

namespace {
// A TOML basic string: quotes and backslashes escaped.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}
} // namespace

expected<config::campaign_spec, toml_reader::placed_errors> one_job_campaign(const std::string& name,
                                                                     const std::string& problem_path,
                                                                     const std::string& run_root) {
  const auto problem = fs::absolute(problem_path);
  const std::string text = "# " + name + ": one problem through the pipeline, written by warpforge\n"
                           "name = " + quoted(name) + "\n"
                           "run_root = " + quoted(fs::absolute(run_root).string()) + "\n"
                           "[[jobs]]\nproblem = " + quoted(problem.string()) + "\n"
                           "[budget]\niterations = 1\n"
                           "[feed]\nendpoint = \"tcp://127.0.0.1:*\"\n";
  return config::parse_campaign(text, problem.parent_path() / (name + ".toml"));
}

} // namespace warpforge::cli
