#include "feed/progress_view.hpp"

#include "feed/event_text.hpp"

#include <algorithm>
#include <cstdio>

namespace warpforge::feed {
namespace {

struct job_counts {
  std::size_t running = 0;
  std::size_t finished = 0;
  std::size_t failed = 0;
  std::uint64_t measured = 0;
  std::uint64_t branch_failures = 0;
};

job_counts count_jobs(const campaign_view& view) {
  job_counts counts;
  for (const auto& job : view.jobs()) {
    switch (job.state) {
      case run_state::finished: ++counts.finished; break;
      case run_state::failed: ++counts.failed; break;
      default: ++counts.running; break;
    }
    counts.measured += job.branches_measured;
    counts.branch_failures += job.branches_failed;
  }
  return counts;
}

std::size_t gpus_leased(const campaign_view& view) {
  return static_cast<std::size_t>(std::count_if(view.gpus().begin(), view.gpus().end(),
                                                [](const auto& entry) { return entry.second.leased_ts.has_value(); }));
}

/// The campaign this command runs: the latest one seen (a view of one run holds one).
const campaign_status* current_campaign(const campaign_view& view) {
  return view.campaigns().empty() ? nullptr : &view.campaigns().back();
}

/// Elapsed and the wall budget left: "running 0:12:34, wall budget left 7:47:26".
std::string clock_text(const campaign_status& campaign, const progress_context& context) {
  const double end = campaign.ended_ts.value_or(context.now_ts);
  const double elapsed = end - campaign.started_ts;
  std::string text = std::string{to_string(campaign.state)} + " " + format_duration(elapsed);
  if (auto budget = context.wall_budget_s ? context.wall_budget_s : campaign.wall_budget_s) {
    if (campaign.state == run_state::running)
      text += ", wall budget left " + format_duration(*budget - elapsed);
    else
      text += " of the " + format_duration(*budget) + " wall budget";
  }
  return text;
}

/// "  llm 12 calls $0.43": what the job spent on language models; "" when it made no call.
std::string llm_text(const job_progress& job) {
  if (job.llm_calls == 0)
    return {};
  char dollars[32];
  std::snprintf(dollars, sizeof dollars, "$%.2f", job.llm_cost_usd);
  return "  llm " + std::to_string(job.llm_calls) + (job.llm_calls == 1 ? " call " : " calls ") + dollars;
}

/// "5.45x": the campaign's speed-up for the job, else the best measured, else "-".
std::string speedup_text(const job_progress& job) {
  if (auto speedup = job.champion_speedup())
    return format_speedup(*speedup);
  if (job.best_speedup)
    return format_speedup(*job.best_speedup);
  return "-";
}

std::string job_state_text(const job_progress& job) {
  switch (job.state) {
    case run_state::running: return job.iteration < 0 ? "starting" : "iter " + std::to_string(job.iteration);
    case run_state::finished: return job.stop.empty() ? "finished" : "finished (" + job.stop + ")";
    case run_state::failed: return "FAILED";
    case run_state::interrupted: return "interrupted";
  }
  return "";
}

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width)
    text.append(width - text.size(), ' ');
  return text;
}

std::string truncated(std::string line, std::size_t width) {
  if (width > 0 && line.size() > width)
    line.resize(width);
  return line;
}

} // namespace

std::vector<std::string> render_progress_block(const campaign_view& view, const progress_context& context) {
  std::vector<std::string> lines;
  const auto* campaign = current_campaign(view);
  std::string head = "warpforge " + (campaign ? campaign->name + ": " + clock_text(*campaign, context)
                                              : std::string{"waiting for the first event"});
  std::string feed;
  if (!context.feed_state.empty())
    feed = "feed " + context.feed_state;
  if (auto seq = view.last_seq())
    feed += (feed.empty() ? "" : ", ") + std::string{"seq "} + std::to_string(*seq);
  if (!feed.empty())
    head += " (" + feed + ")";
  lines.push_back(head);

  const auto counts = count_jobs(view);
  lines.push_back("jobs " + std::to_string(view.jobs().size()) + " (" + std::to_string(counts.running) +
                  " running, " + std::to_string(counts.finished) + " finished, " +
                  std::to_string(counts.failed) + " failed)  candidates measured " +
                  std::to_string(counts.measured) + ", failed " + std::to_string(counts.branch_failures) +
                  "  GPUs leased " + std::to_string(gpus_leased(view)) + "/" + std::to_string(view.gpus().size()));

  std::size_t name_width = 0;
  for (const auto& job : view.jobs())
    name_width = std::max(name_width, job.name.size());
  for (const auto& job : view.jobs())
    lines.push_back("  " + pad(job.name, name_width) + "  " + pad(job_state_text(job), 10) + "  measured " +
                    pad(std::to_string(job.branches_measured), 4) + "  best " + speedup_text(job) +
                    llm_text(job));

  const double since = campaign ? campaign->started_ts : view.first_ts().value_or(context.now_ts);
  const double until = campaign && campaign->ended_ts ? *campaign->ended_ts : context.now_ts;
  const double wall = campaign ? campaign->wall_s(context.now_ts) : until - since; // the shares' base
  for (const auto& [index, gpu] : view.gpus()) {
    // busy and occupied as docs/report.md defines them ("Throughput"), the same words as the
    // end-of-run table, status and the dashboard.
    std::string line = "  GPU " + std::to_string(index) + "  busy " +
                       pad(format_percent(gpu.busy_share(wall)), 6) + "  occupied " +
                       pad(format_percent(gpu.occupied_share(wall, context.now_ts)), 6) + "  ";
    if (gpu.out_of_service)
      line += "out of service (its runner failed)";
    else if (gpu.leased_ts) {
      event where;
      where.job = gpu.job;
      where.iter = gpu.iter;
      where.branch = gpu.branch;
      line += place_of(where);
    } else {
      line += "idle";
    }
    lines.push_back(std::move(line));
  }
  for (auto& line : lines)
    line = truncated(std::move(line), context.width);
  return lines;
}

std::optional<std::string> render_progress_line(const campaign_view& view, const event& e) {
  auto job = std::find_if(view.jobs().begin(), view.jobs().end(), [&](const job_progress& j) {
    return j.name == e.job && j.campaign == e.campaign;
  });
  const bool known_job = job != view.jobs().end();
  auto best = [&] {
    std::string text;
    if (known_job && job->champion_time_s)
      text = "best " + format_seconds(*job->champion_time_s);
    if (known_job && job->champion_speedup())
      text += " (" + format_speedup(*job->champion_speedup()) + ")";
    if (text.empty() && known_job && job->best_time_s) // bench, diagnose: measured, no champion
      text = "fastest " + format_seconds(*job->best_time_s) + ", " + std::to_string(job->branches_measured) +
             " measured";
    return text.empty() ? std::string{"no measurement yet"} : text;
  };
  const auto detail = read_detail(e.detail_json);
  switch (e.type) {
    case event_type::campaign_started: return "progress: campaign " + e.campaign + " started";
    case event_type::campaign_finished:
    case event_type::campaign_failed:
    case event_type::campaign_interrupted: {
      std::string line = "progress: campaign " + e.campaign + " " +
                         std::string{to_string(e.type)}.substr(std::string_view{"campaign_"}.size());
      if (const auto* campaign = current_campaign(view))
        line += " after " + format_duration(e.ts - campaign->started_ts);
      if (auto reason = text_of(detail, "reason"); reason && !reason->empty())
        line += ": " + *reason;
      return line;
    }
    case event_type::job_started: return "progress: " + e.job + " started";
    case event_type::iteration_finished:
      return "progress: " + e.job + " iteration " + std::to_string(e.iter) + ": " + best() +
             (text_of(detail, "champion") == "true" ? ", a new champion" : "");
    case event_type::job_finished:
      return "progress: " + e.job + " finished" +
             (known_job && !job->stop.empty() ? " (" + job->stop + ")" : "") + ": " + best();
    default: break;
  }
  if (is_problem(e.type))
    return "progress: " + event_line(e);
  return std::nullopt;
}

std::string render_progress_summary(const campaign_view& view, const progress_context& context) {
  const auto counts = count_jobs(view);
  const auto* campaign = current_campaign(view);
  std::string line = "progress " + (campaign ? format_duration(context.now_ts - campaign->started_ts)
                                             : std::string{"-"}) +
                     ": jobs " + std::to_string(counts.running) + " running, " +
                     std::to_string(counts.finished) + " finished, " + std::to_string(counts.failed) +
                     " failed; " + std::to_string(counts.measured) + " candidates measured; GPUs leased " +
                     std::to_string(gpus_leased(view)) + "/" + std::to_string(view.gpus().size());
  if (campaign) {
    if (auto budget = context.wall_budget_s ? context.wall_budget_s : campaign->wall_budget_s)
      line += "; wall budget left " + format_duration(*budget - (context.now_ts - campaign->started_ts));
  }
  for (const auto& job : view.jobs())
    line += "; " + job.name + " " + speedup_text(job);
  return line;
}

} // namespace warpforge::feed
