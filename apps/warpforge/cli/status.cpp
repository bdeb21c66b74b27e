// `warpforge status <run-dir>`: what the store says about a campaign, readable during a live run
// (the database is opened read-only; WAL lets it read beside the writer) and after it.

#include "apps/warpforge/cli/commands.hpp"
#include "apps/warpforge/cli/user_errors.hpp"

#include "feed/endpoint.hpp"
#include "foundation/json/writer.hpp"
#include "report/campaign_report.hpp"
#include "storage/database.hpp"
#include "storage/run_directory.hpp"
#include "storage/run_owner.hpp"
#include "foundation/vocabulary/number_text.hpp"

#include <cstdio>
#include <ctime>
#include <iostream>
#include <sstream>

namespace warpforge::cli {
namespace {

/// What the store cannot say: who writes the run now (storage/run_owner.hpp), and where a
/// monitor connects: the endpoints the feed wrote into the run directory (empty when it wrote
/// none: a run from before replay over the network, or a feed that never bound).
struct live_facts {
  std::string feed;
  std::string replay;
  std::optional<storage::run_holder> owner; // nullopt: no process is running this campaign
};

live_facts live_facts_of(const storage::run_directory& dir) {
  return {feed::read_endpoint_file(dir.feed_endpoint_path()),
          feed::read_endpoint_file(dir.replay_endpoint_path()), storage::run_owner::holder(dir)};
}

/// A campaign the store calls running is live only while its owner holds the directory; one
/// whose process died (SIGKILL, a crash, a lost machine) is safe to resume.
std::string liveness(const storage::campaign_row& c, const live_facts& facts) {
  if (facts.owner)
    return "live: pid " + std::to_string(facts.owner->pid) + " (" + facts.owner->command + ")";
  if (c.state == vocabulary::campaign_state::running)
    return "not running: its process ended without recording the end; safe to resume (warpforge resume " +
           c.run_dir + ")";
  return "not running";
}

std::string format_time(double unix_s) {
  std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S UTC", &utc);
  return buffer;
}

// A time, or "not measured" (the reason follows on the job's own line).
std::string format_seconds(std::optional<double> s) {
  if (!s)
    return "not measured";
  return vocabulary::time_text(*s); // as the report and the dashboard write it
}

/// "3 calls (1 failed), tokens in 12000 out 900 cache read 30000 write 400, $0.1234, 41.0 s".
std::string spend_text(const storage::llm_spend& spend) {
  char money[64];
  std::snprintf(money, sizeof money, ", $%.4f, %.1f s", spend.cost_usd, spend.seconds);
  return std::to_string(spend.calls) + (spend.calls == 1 ? " call" : " calls") +
         (spend.failed_calls > 0 ? " (" + std::to_string(spend.failed_calls) + " failed)" : std::string{}) +
         ", tokens in " + std::to_string(spend.input_tokens) + " out " + std::to_string(spend.output_tokens) +
         " cache read " + std::to_string(spend.cache_read_tokens) + " write " +
         std::to_string(spend.cache_write_tokens) + money;
}

/// Every job's spend, summed.
storage::llm_spend campaign_spend(const storage::campaign_summary& s) {
  storage::llm_spend total;
  for (const auto& [job, spend] : s.llm_by_job)
    total += spend;
  return total;
}

void write_spend(json::writer& w, const storage::llm_spend& spend) {
  w.begin_object()
    .key("calls").value(spend.calls)
    .key("failed_calls").value(spend.failed_calls)
    .key("input_tokens").value(spend.input_tokens)
    .key("output_tokens").value(spend.output_tokens)
    .key("cache_read_tokens").value(spend.cache_read_tokens)
    .key("cache_write_tokens").value(spend.cache_write_tokens)
    .key("cost_usd").value(spend.cost_usd)
    .key("seconds").value(spend.seconds)
    .end_object();
}

std::string render_text(const storage::campaign_summary& s, const live_facts& facts) {
  std::ostringstream out;
  const auto& c = s.campaign;
  out << "campaign  " << c.name << "  [" << vocabulary::to_string(c.state) << "]\n";
  if (!c.reason.empty())
    out << "reason    " << c.reason << '\n';
  out << "process   " << liveness(c, facts) << '\n';
  out << "run dir   " << c.run_dir << '\n';
  if (!facts.feed.empty())
    out << "feed      " << facts.feed << "   replay "
        << (facts.replay.empty() ? std::string{"-"} : facts.replay)
        << (facts.owner ? "" : "   (while it ran)") << '\n';
  out << "spec      " << c.spec_path << '\n';
  out << "started   " << format_time(c.created_at) << "   updated " << format_time(c.updated_at) << '\n';
  out << "\njobs (" << s.jobs.size() << ")\n";
  for (const auto& j : s.jobs) {
    out << "  " << j.name << "  [" << vocabulary::to_string(j.state) << "]  iterations "
        << j.iterations_done << "  baseline " << format_seconds(j.baseline_time_s) << "  best "
        << format_seconds(j.best_time_s);
    if (j.baseline_time_s && j.best_time_s && *j.best_time_s > 0)
      out << "  speed-up " << vocabulary::speedup_text(*j.baseline_time_s / *j.best_time_s);
    out << '\n';
    if (!j.reason.empty())
      out << "      " << j.reason << '\n';
    else if (!j.baseline_time_s || !j.best_time_s) // why nothing is shown where a time would be
      out << "      not measured: " << report::job_not_measured_reason(c, j) << '\n';
    if (auto spend = s.llm_by_job.find(j.id); spend != s.llm_by_job.end())
      out << "      llm " << spend_text(spend->second) << '\n';
  }
  out << "\nbranches  pending " << s.branches_pending;
  for (const auto& [outcome, count] : s.branch_outcomes)
    if (count > 0)
      out << "  " << vocabulary::to_string(outcome) << ' ' << count;
  out << '\n';
  if (!s.llm_by_job.empty())
    out << "llm       " << spend_text(campaign_spend(s)) << '\n';
  if (s.last_event_seq)
    out << "events    last seq " << *s.last_event_seq << " at " << format_time(*s.last_event_ts) << '\n';
  else
    out << "events    none\n";
  return out.str();
}

std::string render_json(const storage::campaign_summary& s, const live_facts& facts) {
  json::writer w;
  const auto& c = s.campaign;
  w.begin_object();
  w.key("campaign").begin_object()
    .key("name").value(c.name)
    .key("state").value(vocabulary::to_string(c.state))
    .key("reason").value(c.reason)
    .key("live").value(facts.owner.has_value())
    .key("run_dir").value(c.run_dir)
    .key("spec_path").value(c.spec_path)
    .key("created_at").value(c.created_at)
    .key("updated_at").value(c.updated_at);
  w.key("owner_pid");
  facts.owner ? w.value(static_cast<std::int64_t>(facts.owner->pid)) : w.null();
  w.end_object();
  w.key("jobs").begin_array();
  for (const auto& j : s.jobs) {
    w.begin_object()
      .key("name").value(j.name)
      .key("state").value(vocabulary::to_string(j.state))
      .key("iterations_done").value(j.iterations_done);
    w.key("baseline_time_s");
    j.baseline_time_s ? w.value(*j.baseline_time_s) : w.null();
    w.key("best_time_s");
    j.best_time_s ? w.value(*j.best_time_s) : w.null();
    w.key("not_measured_reason"); // why a time above is null; null when both were measured
    j.baseline_time_s && j.best_time_s ? w.null() : w.value(report::job_not_measured_reason(c, j));
    if (auto spend = s.llm_by_job.find(j.id); spend != s.llm_by_job.end())
      write_spend(w.key("llm"), spend->second);
    w.key("reason").value(j.reason).end_object();
  }
  w.end_array();
  w.key("branches").begin_object().key("pending").value(s.branches_pending);
  for (const auto& [outcome, count] : s.branch_outcomes)
    w.key(vocabulary::to_string(outcome)).value(count);
  w.end_object();
  if (!s.llm_by_job.empty())
    write_spend(w.key("llm"), campaign_spend(s));
  w.key("last_event_seq");
  s.last_event_seq ? w.value(*s.last_event_seq) : w.null();
  w.key("feed_endpoint");
  facts.feed.empty() ? w.null() : w.value(facts.feed);
  w.key("replay_endpoint");
  facts.replay.empty() ? w.null() : w.value(facts.replay);
  w.end_object();
  return std::move(w).str();
}

} // namespace

exit_code status(const status_options& options) {
  auto dir = storage::run_directory::open(options.run_dir);
  if (!dir) {
    std::cerr << "warpforge status: " << user_message(dir.error()) << '\n';
    return exit_code::bad_input;
  }
  auto db = storage::database::open_read_only(dir->database_path());
  if (!db) {
    std::cerr << "warpforge status: " << user_message(db.error()) << '\n';
    return exit_code::bad_input;
  }
  auto summary = db->load_campaign_summary();
  if (!summary) {
    std::cerr << "warpforge status: " << options.run_dir << ": "
              << user_message(summary.error()) << '\n';
    return exit_code::bad_input;
  }
  const auto facts = live_facts_of(*dir);
  std::cout << (options.json ? render_json(*summary, facts) + "\n"
                             : render_text(*summary, facts));
  return exit_code::ok;
}

} // namespace warpforge::cli
