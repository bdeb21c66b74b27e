// `warpforge doctor`: is this host ready to run campaigns? GPUs are asked of warpforge-runner
// (the coordinator itself never touches CUDA devices); the rest is looked at here. Every check
// reports, none aborts the others: with no GPU it says so and still reports the rest.

#include "apps/warpforge/cli/commands.hpp"
#include "apps/warpforge/cli/llm_model.hpp"

#include "gpu/runner/runner_client.hpp"
#include "gpu/toolchain.hpp"
#include "foundation/json/writer.hpp"
#include "llm/providers.hpp"
#include "pipeline/code_check.hpp"
#include "storage/run_directory.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace warpforge::cli {
namespace {

struct gpu_findings {
  std::string runner_path;               // empty when not found
  std::optional<gpu::host_report> report; // empty when the runner failed
  std::string runner_problem;            // why there is no report
};

gpu_findings ask_runner(const doctor_options& options) {
  gpu_findings found;
  auto path = gpu::locate_runner();
  if (!path) {
    found.runner_problem = path.error().to_string();
    return found;
  }
  found.runner_path = path->string();
  gpu::runner_options runner;
  runner.executable = *path;
  auto client = gpu::runner_client::start(runner);
  if (!client) {
    found.runner_problem = client.error().to_string();
    return found;
  }
  auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
    std::chrono::duration<double>(options.runner_timeout_s));
  auto report = client->device_query(gpu::device_query_depth::full, timeout);
  if (!report)
    found.runner_problem = report.error().to_string();
  else
    found.report = std::move(*report);
  return found;
}

// Whether run directories can be created under `run_root`. The root itself is created on the
// first run, so a missing root is fine when its nearest existing ancestor is writable.
struct run_root_check {
  std::string checked;   // the folder actually tested
  bool exists = false;   // the root itself exists
  expected<void, storage::store_error> writable;
};

run_root_check check_run_root(const std::string& run_root) {
  std::error_code ec;
  auto dir = std::filesystem::absolute(run_root, ec);
  const bool exists = std::filesystem::exists(dir, ec);
  while (!std::filesystem::exists(dir, ec) && dir.has_parent_path() && dir != dir.parent_path())
    dir = dir.parent_path();
  return {dir.string(), exists, storage::check_writable(dir)};
}

std::string indent(const std::string& text) {
  std::string out;
  std::istringstream lines{text};
  for (std::string line; std::getline(lines, line);)
    out += "  " + line + '\n';
  return out;
}

bool gpu_usable(const gpu_findings& g) {
  return g.report && g.report->status == gpu::gpu_status::ok && !g.report->devices.empty();
}

std::string render_text(const gpu_findings& g, const gpu::toolchain_report& tools,
                        const std::vector<llm::key_presence>& keys, const std::string& run_root,
                        const run_root_check& root) {
  std::ostringstream out;
  out << "warpforge doctor\n\nGPUs";
  if (!g.runner_path.empty())
    out << " (asked of " << g.runner_path << ")";
  out << '\n';
  if (g.report)
    out << indent(gpu::to_text(*g.report));
  else
    out << "  runner failed: " << g.runner_problem << '\n';

  out << "\nToolkit\n" << indent(gpu::to_text(tools));

  out << "\nLLM providers (key variables: set or not; values are never shown)\n";
  for (const auto& k : keys) {
    char line[128];
    std::snprintf(line, sizeof line, "  %-10s %-20s %s\n", std::string{llm::to_string(k.kind)}.c_str(),
                  k.api_key_env.c_str(), k.set ? "set" : "not set");
    out << line;
  }

  out << "\nRun directories\n  " << run_root << "  ";
  if (!root.writable)
    out << "NOT writable: " << storage::to_string(root.writable.error()) << '\n';
  else if (root.exists)
    out << "writable\n";
  else
    out << "will be created (" << root.checked << " is writable)\n";

  // The verdict names what the code check can read here: without nvdisasm or cuobjdump the SASS
  // of every candidate goes unchecked, which a newcomer would otherwise learn only from the events.
  const auto sass = pipeline::sass_check_state();
  const auto sass_note = sass == "checked" ? std::string{}
                                           : " (their SASS " + sass + "; the CUDA toolkit's cuda-nvdisasm package "
                                             "brings one)";
  out << "\nVerdict: ";
  if (gpu_usable(g))
    out << "ready: " << g.report->devices.size() << " GPU(s) can compile, check and time" << sass_note << ".\n";
  else
    out << "no usable GPU: campaigns can compile and check" << sass_note
        << ", but measurements need a GPU; build the bundle with scripts/bundle.sh and run it on a GPU node "
           "(docs/deploy.md).\n";
  return out.str();
}

std::string render_json(const gpu_findings& g, const gpu::toolchain_report& tools,
                        const std::vector<llm::key_presence>& keys, const std::string& run_root,
                        const run_root_check& root) {
  json::writer w;
  w.begin_object();
  w.key("gpu_usable").value(gpu_usable(g));
  w.key("sass_check").value(pipeline::sass_check_state()); // "checked", or why not
  w.key("runner").begin_object().key("path").value(g.runner_path);
  w.key("problem").value(g.runner_problem).end_object();
  w.key("gpus");
  if (g.report)
    gpu::write_json(w, *g.report);
  else
    w.null();
  w.key("toolchain");
  gpu::write_json(w, tools);
  w.key("llm_keys").begin_array();
  for (const auto& k : keys)
    w.begin_object()
      .key("provider").value(llm::to_string(k.kind))
      .key("env").value(k.api_key_env)
      .key("set").value(k.set)
      .end_object();
  w.end_array();
  w.key("run_root").begin_object()
    .key("path").value(run_root)
    .key("exists").value(root.exists)
    .key("checked").value(root.checked)
    .key("writable").value(root.writable.has_value());
  w.key("problem").value(root.writable ? std::string{} : storage::to_string(root.writable.error()));
  w.end_object();
  w.end_object();
  return std::move(w).str();
}


// The campaign's model, asked one token (text). The key's value is never shown.
std::string model_text(const std::string& campaign, const expected<std::optional<model_check>, std::string>& check) {
  std::string out = "\nLLM model of " + campaign + "\n  ";
  if (!check)
    return out + "the campaign does not load: " + check.error() + "\n";
  if (!*check)
    return out + "no [llm] table: nothing to ask\n";
  const auto& c = **check;
  return out + c.provider + " " + c.model + " at " + c.base_url + ": " + (c.answered ? "answers: " : "NO ANSWER: ") +
         c.detail + "\n";
}

void write_model_json(json::writer& w, const expected<std::optional<model_check>, std::string>& check) {
  w.key("llm_model").begin_object();
  if (!check)
    w.key("error").value(check.error());
  else if (*check)
    w.key("provider").value((*check)->provider).key("model").value((*check)->model)
      .key("base_url").value((*check)->base_url).key("answered").value((*check)->answered)
      .key("detail").value((*check)->detail);
  w.end_object();
}

bool model_failed(const expected<std::optional<model_check>, std::string>& check) {
  return !check || (*check && !(*check)->answered);
}

} // namespace

exit_code doctor(const doctor_options& options) {
  auto gpus = ask_runner(options);
  auto tools = gpu::probe_toolchain();
  auto keys = llm::probe_provider_keys();
  auto root = check_run_root(options.run_root);
  std::optional<expected<std::optional<model_check>, std::string>> model;
  if (!options.campaign.empty())
    model = check_campaign_model(options.campaign);
  if (options.json) {
    auto text = render_json(gpus, tools, keys, options.run_root, root);
    if (model) { // one more member before the object's closing brace
      json::writer w;
      w.begin_object();
      write_model_json(w, *model);
      w.end_object();
      auto member = std::move(w).str();
      text = text.substr(0, text.size() - 1) + "," + member.substr(1);
    }
    std::cout << text << "\n";
  } else {
    std::cout << render_text(gpus, tools, keys, options.run_root, root) << (model ? model_text(options.campaign, *model) : "");
  }
  if (options.require_gpu && !gpu_usable(gpus))
    return exit_code::no_gpu;
  if (model && model_failed(*model))
    return exit_code::failure;
  return exit_code::ok;
}

} // namespace warpforge::cli
