#include "pipeline/hosts/slurm_hosts.hpp"

#include "foundation/files/atomic_write.hpp"
#include "foundation/vocabulary/enum_text.hpp"
#include "pipeline/hosts/sbatch_script.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

namespace warpforge::hosts {

namespace fs = std::filesystem;

namespace {

constexpr vocabulary::enum_word<cancel_outcome> cancel_outcome_words[] = {
  {cancel_outcome::no_job, "no_job"},
  {cancel_outcome::already_ended, "already_ended"},
  {cancel_outcome::cancelled, "cancelled"},
  {cancel_outcome::cancelling, "cancelling"},
};
static_assert(vocabulary::covers(cancel_outcome_words, all_cancel_outcomes));

// How often a cancelled job's state is asked while it completes.
constexpr std::chrono::milliseconds cancel_poll_interval{250};

fs::path record_path(const fs::path& run_dir) { return hosts_folder(run_dir) / paths::job_record; }

unexpected<slurm_error> failure(std::string message) { return unexpected(slurm_error{std::move(message)}); }

} // namespace

std::string_view to_string(cancel_outcome outcome) { return vocabulary::word_of(cancel_outcome_words, outcome); }

expected<std::optional<std::string>, slurm_error> recorded_job(const fs::path& run_dir) {
  const fs::path path = record_path(run_dir);
  std::error_code ec;
  if (!fs::exists(path, ec))
    return std::optional<std::string>{};
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in)
    return failure("cannot read the job record " + path.string());
  std::string id = text.str();
  while (!id.empty() && (id.back() == '\n' || id.back() == '\r'))
    id.pop_back();
  if (id.empty() || id.size() > 20 || !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return failure("the job record " + path.string() + " does not hold a Slurm job id; if no job of this run is "
                   "left (squeue --me), remove the file");
  return std::optional<std::string>{id};
}

expected<slurm_job, slurm_error> submit_hosts(const config::slurm_spec& spec, const host_command& command,
                                              const fs::path& run_dir) {
  const fs::path dir = fs::absolute(run_dir).lexically_normal();
  if (auto why = plain_path_problem(dir))
    return failure("cannot place hosts with Slurm for this run directory: " + *why +
                   "; choose a run_root whose path is plain");
  auto client = slurm_client::find(hosts_folder(dir));
  if (!client)
    return unexpected(std::move(client).error());
  slurm_job job;
  // A resume after a kill: the earlier process's job may still hold its nodes.
  auto earlier = cancel_hosts(dir);
  if (!earlier)
    return failure("before submitting again: " + earlier.error().message);
  if (earlier->outcome == cancel_outcome::cancelled || earlier->outcome == cancel_outcome::cancelling)
    job.replaced_id = earlier->job_id;
  job.script = hosts_folder(dir) / paths::script;
  if (auto written = files::write_file_atomically(job.script, sbatch_script(spec, command, dir)); !written)
    return failure("cannot write the sbatch script: " + written.error());
  auto id = client->submit(job.script);
  if (!id)
    return unexpected(std::move(id).error());
  job.id = *id;
  // An --output of the spec's own options comes last in the script and wins: then the hosts'
  // output is where it says, not here.
  const bool own_output = std::any_of(spec.sbatch_options.begin(), spec.sbatch_options.end(), [](std::string_view o) {
    const auto name = o.substr(2, o.find('=') == std::string_view::npos ? std::string_view::npos : o.find('=') - 2);
    return name.size() >= 3 && std::string_view{"output"}.starts_with(name); // sbatch takes "--out" too
  });
  if (!own_output)
    job.output = hosts_folder(dir) / ("slurm-" + job.id + ".out");
  if (auto written = files::write_file_atomically(record_path(dir), job.id + "\n"); !written) {
    // Without the record no later process could cancel it: cancel it now.
    auto cancelled = client->cancel(job.id);
    return failure("cannot keep the job id " + job.id + ": " + written.error() +
                   (cancelled ? "; the job was cancelled" : "; and cancelling it failed: " + cancelled.error().message));
  }
  return job;
}

expected<cancel_report, slurm_error> cancel_hosts(const fs::path& run_dir, std::chrono::milliseconds wait) {
  const fs::path dir = fs::absolute(run_dir).lexically_normal();
  auto recorded = recorded_job(dir);
  if (!recorded)
    return unexpected(std::move(recorded).error());
  if (!*recorded)
    return cancel_report{cancel_outcome::no_job, {}};
  const std::string id = **recorded;
  auto client = slurm_client::find(hosts_folder(dir));
  if (!client)
    return unexpected(std::move(client).error());
  auto activity = client->activity(id);
  if (!activity)
    return unexpected(std::move(activity).error());
  const bool sent = *activity == job_activity::active;
  if (sent)
    if (auto cancelled = client->cancel(id); !cancelled)
      return unexpected(std::move(cancelled).error());
  std::error_code ec;
  fs::remove(record_path(dir), ec); // cancelled, or ended on its own: never cancelled again
  cancel_report report{cancel_outcome::already_ended, id};
  if (*activity == job_activity::ended)
    return report;
  // Cancelled (or ending on its own): wait while Slurm ends its processes.
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (true) {
    auto now = client->activity(id);
    if (now && *now == job_activity::ended) {
      report.outcome = sent ? cancel_outcome::cancelled : cancel_outcome::already_ended;
      return report;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      report.outcome = sent ? cancel_outcome::cancelling : cancel_outcome::already_ended;
      return report;
    }
    std::this_thread::sleep_for(cancel_poll_interval);
  }
}

} // namespace warpforge::hosts
