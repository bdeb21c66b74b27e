#include "feed/tail_view.hpp"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace warpforge::feed {
namespace {

// ANSI SGR sequences, used only with tail_options::colour.
constexpr std::string_view ansi_reset = "\x1b[0m";
constexpr std::string_view ansi_bold = "\x1b[1m";
constexpr std::string_view ansi_red = "\x1b[31m";
constexpr std::string_view ansi_green = "\x1b[32m";
constexpr std::string_view ansi_yellow = "\x1b[33m";
constexpr std::string_view no_colour = "";

constexpr std::size_t column_gap = 2; // spaces between table columns [characters]
constexpr int seconds_per_minute = 60;
constexpr int seconds_per_hour = 3600;
constexpr int seconds_per_day = 86400;

/// Detail members a person wants beside a problem's message, in this order.
constexpr std::array<std::string_view, 6> problem_context_keys{
  "actor", "attempt", "exit_code", "signal", "outcome", "delay_s"};

/// One top-level member of an event's detail, read for display.
struct detail_member {
  std::string key;
  std::optional<double> number; // set for JSON numbers
  std::string text;             // a string's content, or the JSON text of any other value
};
using detail_members = std::vector<detail_member>;

/// Reads detail_json's top-level members; none when it is not a JSON object.
detail_members read_detail(std::string_view json_text) {
  thread_local simdjson::dom::parser parser; // one per thread (TOOLCHAIN.md 7.14)
  detail_members members;
  simdjson::dom::object object;
  if (parser.parse(json_text.data(), json_text.size()).get_object().get(object))
    return members;
  for (auto member : object) {
    detail_member read{std::string{member.key}, std::nullopt, {}};
    switch (member.value.type()) {
      case simdjson::dom::element_type::STRING:
        read.text = std::string{member.value.get_string().value_unsafe()};
        break;
      case simdjson::dom::element_type::INT64:
      case simdjson::dom::element_type::UINT64:
      case simdjson::dom::element_type::DOUBLE:
        read.number = member.value.get_double().value_unsafe();
        read.text = simdjson::minify(member.value);
        break;
      default: read.text = simdjson::minify(member.value); break;
    }
    members.push_back(std::move(read));
  }
  return members;
}

const detail_member* find(const detail_members& members, std::string_view key) {
  for (const auto& member : members)
    if (member.key == key)
      return &member;
  return nullptr;
}

std::optional<double> number_of(const detail_members& members, std::string_view key) {
  auto* member = find(members, key);
  return member ? member->number : std::nullopt;
}

std::optional<std::string> text_of(const detail_members& members, std::string_view key) {
  auto* member = find(members, key);
  if (!member)
    return std::nullopt;
  return member->text;
}

std::string format_seconds(double seconds) {
  struct unit {
    double scale; // seconds per unit [s]
    std::string_view name;
  };
  constexpr std::array<unit, 4> units{{{1.0, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}}};
  const unit* chosen = &units.back();
  for (const auto& candidate : units)
    if (std::fabs(seconds) >= candidate.scale) {
      chosen = &candidate;
      break;
    }
  char text[48];
  std::snprintf(text, sizeof text, "%.3f %s", seconds / chosen->scale, chosen->name.data());
  return text;
}

std::string format_speedup(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", ratio);
  return text;
}

/// "21:03:04": the UTC time of day of a unix time [s].
std::string format_clock(double unix_s) {
  if (!std::isfinite(unix_s))
    return "--:--:--";
  auto whole = static_cast<long long>(std::floor(unix_s));
  auto of_day = ((whole % seconds_per_day) + seconds_per_day) % seconds_per_day;
  char text[16];
  std::snprintf(text, sizeof text, "%02lld:%02lld:%02lld", of_day / seconds_per_hour,
                (of_day % seconds_per_hour) / seconds_per_minute, of_day % seconds_per_minute);
  return text;
}

std::string job_label(std::string_view campaign, std::string_view job) {
  if (campaign.empty())
    return std::string{job};
  if (job.empty())
    return std::string{campaign};
  return std::string{campaign} + "/" + std::string{job};
}

/// "nightly/gemm iter 3 branch 5 gpu 1", leaving out what the event is not about.
std::string place_of(const event& e) {
  std::string place = job_label(e.campaign, e.job);
  auto append = [&place](std::string_view name, std::int64_t value) {
    if (value < 0)
      return;
    if (!place.empty())
      place += ' ';
    place.append(name).append(" ").append(std::to_string(value));
  };
  append("iter", e.iter);
  append("branch", e.branch);
  append("gpu", e.gpu);
  return place;
}

bool is_problem(event_type type) {
  switch (type) {
    case event_type::warning:
    case event_type::error:
    case event_type::campaign_failed:
    case event_type::campaign_interrupted:
    case event_type::job_failed:
    case event_type::runner_restarted:
    case event_type::runner_failed:
    case event_type::actor_restarted:
    case event_type::actor_gave_up: return true;
    default: return false;
  }
}

/// Problems that do not stop work by themselves: shown in yellow, the rest in red.
bool is_warning(event_type type) {
  return type == event_type::warning || type == event_type::runner_restarted ||
         type == event_type::actor_restarted || type == event_type::campaign_interrupted;
}

/// Events whose time_s / speedup describe a result of the job (ablations do not: they are slower
/// on purpose).
bool carries_result(event_type type) {
  return type == event_type::branch_measured || type == event_type::champion_elected ||
         type == event_type::iteration_finished || type == event_type::job_finished;
}

/// The message of a problem: detail's message or reason, then its context members.
std::string problem_message(const detail_members& detail) {
  std::string message = text_of(detail, "message").value_or(text_of(detail, "reason").value_or(""));
  std::string context;
  for (auto key : problem_context_keys) {
    if (auto value = text_of(detail, key)) {
      context += context.empty() ? "" : " ";
      context.append(key).append("=").append(*value);
    }
  }
  if (!context.empty())
    message += (message.empty() ? "[" : " [") + context + "]";
  return message;
}

/// What a GPU's latest event says in a few words.
std::string gpu_summary(event_type type, const detail_members& detail) {
  switch (type) {
    case event_type::branch_measured:
    case event_type::ablation_measured:
    case event_type::champion_elected:
      if (auto time_s = number_of(detail, "time_s"))
        return format_seconds(*time_s);
      return {};
    case event_type::branch_failed:
      return text_of(detail, "outcome").value_or(text_of(detail, "reason").value_or(""));
    case event_type::runner_restarted:
    case event_type::runner_failed:
    case event_type::error:
    case event_type::warning: return problem_message(detail);
    default: return {};
  }
}

std::string pad(std::string_view text, std::size_t width, bool right_aligned) {
  std::string padding(width > text.size() ? width - text.size() : 0, ' ');
  return right_aligned ? padding + std::string{text} : std::string{text} + padding;
}

} // namespace

std::string_view to_string(run_state state) {
  switch (state) {
    case run_state::running: return "running";
    case run_state::finished: return "finished";
    case run_state::failed: return "failed";
    case run_state::interrupted: return "interrupted";
  }
  return "unknown";
}

std::optional<run_state> run_state_from_string(std::string_view text) {
  for (auto state : all_run_states)
    if (to_string(state) == text)
      return state;
  return std::nullopt;
}

tail_view::tail_view(tail_options options) : options_(options) {}

campaign_status& tail_view::campaign_for(const event& e) {
  auto found = std::find_if(campaigns_.begin(), campaigns_.end(),
                            [&](const campaign_status& c) { return c.name == e.campaign; });
  if (found != campaigns_.end())
    return *found;
  campaigns_.push_back(campaign_status{e.campaign, run_state::running, e.ts, e.ts});
  return campaigns_.back();
}

job_progress& tail_view::job_for(const event& e) {
  auto found = std::find_if(jobs_.begin(), jobs_.end(), [&](const job_progress& j) {
    return j.campaign == e.campaign && j.name == e.job;
  });
  if (found != jobs_.end())
    return *found;
  job_progress job;
  job.campaign = e.campaign;
  job.name = e.job;
  jobs_.push_back(std::move(job));
  return jobs_.back();
}

bool tail_view::apply(const event& e) {
  if (last_seq_ && e.seq <= *last_seq_) {
    ++ignored_;
    return false;
  }
  last_seq_ = e.seq;
  ++applied_;
  auto detail = read_detail(e.detail_json);

  if (!e.campaign.empty()) {
    auto& campaign = campaign_for(e);
    campaign.last_ts = e.ts;
    switch (e.type) {
      case event_type::campaign_started: campaign.state = run_state::running; break;
      case event_type::campaign_finished: campaign.state = run_state::finished; break;
      case event_type::campaign_failed: campaign.state = run_state::failed; break;
      case event_type::campaign_interrupted: campaign.state = run_state::interrupted; break;
      default: break;
    }
  }

  if (!e.job.empty()) {
    auto& job = job_for(e);
    switch (e.type) {
      case event_type::job_started:
        job.state = run_state::running;
        if (auto baseline = number_of(detail, "baseline_time_s"))
          job.baseline_time_s = baseline;
        break;
      case event_type::job_finished: job.state = run_state::finished; break;
      case event_type::job_failed: job.state = run_state::failed; break;
      case event_type::branch_measured: ++job.branches_measured; break;
      case event_type::branch_failed: ++job.branches_failed; break;
      default: break;
    }
    if (e.iter >= 0)
      job.iteration = std::max(job.iteration, e.iter);
    if (carries_result(e.type)) {
      auto time_s = number_of(detail, "time_s");
      if (time_s && (!job.best_time_s || *time_s < *job.best_time_s))
        job.best_time_s = time_s;
      auto speedup = number_of(detail, "speedup");
      if (!speedup && time_s && job.baseline_time_s && *time_s > 0.0)
        speedup = *job.baseline_time_s / *time_s;
      if (speedup && (!job.best_speedup || *speedup > *job.best_speedup))
        job.best_speedup = speedup;
    }
  }

  if (e.gpu >= 0) {
    auto& gpu = gpus_[e.gpu];
    gpu.gpu = e.gpu;
    gpu.idle = e.type == event_type::gpu_released;
    gpu.job = gpu.idle ? std::string{} : e.job;
    gpu.iter = gpu.idle ? no_iter : e.iter;
    gpu.branch = gpu.idle ? no_branch : e.branch;
    gpu.last = e.type;
    gpu.summary = gpu_summary(e.type, detail);
    gpu.since_ts = e.ts;
  }

  if (e.type == event_type::feed_dropped)
    feed_dropped_ += static_cast<std::uint64_t>(number_of(detail, "dropped").value_or(0.0));

  if (is_problem(e.type)) {
    ++problems_seen_;
    problems_.push_back(problem{e.seq, e.ts, e.type, place_of(e), problem_message(detail)});
    while (problems_.size() > options_.problem_lines)
      problems_.pop_front();
  }
  return true;
}

std::string tail_view::colour(std::string_view text, std::string_view code) const {
  if (!options_.colour || code.empty())
    return std::string{text};
  return std::string{code} + std::string{text} + std::string{ansi_reset};
}

std::string tail_view::state_text(run_state state, std::size_t width) const {
  std::string_view code = no_colour;
  switch (state) {
    case run_state::running: code = ansi_bold; break;
    case run_state::finished: code = ansi_green; break;
    case run_state::failed: code = ansi_red; break;
    case run_state::interrupted: code = ansi_yellow; break;
  }
  return colour(pad(to_string(state), width, false), code);
}

std::string tail_view::render() const {
  std::string out;
  if (!last_seq_)
    return "warpforge tail: no events yet\n";

  out += "warpforge tail: " + std::to_string(applied_) + " events, last seq " +
         std::to_string(*last_seq_) + ", dropped by the feed " + std::to_string(feed_dropped_);
  if (feed_dropped_ > 0)
    out += colour(" (replay from the store to fill the gap)", ansi_yellow);
  out += '\n';

  for (const auto& campaign : campaigns_) {
    out += "campaign " + campaign.name + ": " +
           state_text(campaign.state, to_string(campaign.state).size()) + " (since " +
           format_clock(campaign.started_ts) + " UTC, last event " +
           format_clock(campaign.last_ts) + " UTC)\n";
  }

  if (!jobs_.empty()) {
    bool several_campaigns = campaigns_.size() > 1;
    const std::array<std::string_view, 7> headers{"JOB",    "STATE",     "ITER",    "MEASURED",
                                                  "FAILED", "BEST TIME", "SPEED-UP"};
    const std::array<bool, 7> right_aligned{false, false, true, true, true, true, true};
    std::vector<std::array<std::string, 7>> rows;
    for (const auto& job : jobs_) {
      rows.push_back({several_campaigns ? job_label(job.campaign, job.name) : job.name,
                      std::string{to_string(job.state)},
                      job.iteration < 0 ? "-" : std::to_string(job.iteration),
                      std::to_string(job.branches_measured), std::to_string(job.branches_failed),
                      job.best_time_s ? format_seconds(*job.best_time_s) : "-",
                      job.best_speedup ? format_speedup(*job.best_speedup) : "-"});
    }
    std::array<std::size_t, 7> widths{};
    for (std::size_t column = 0; column < headers.size(); ++column) {
      widths[column] = headers[column].size();
      for (const auto& row : rows)
        widths[column] = std::max(widths[column], row[column].size());
    }
    const std::string gap(column_gap, ' ');
    out += '\n';
    for (std::size_t column = 0; column < headers.size(); ++column)
      out += (column ? gap : "") + pad(headers[column], widths[column], right_aligned[column]);
    out += '\n';
    for (std::size_t index = 0; index < rows.size(); ++index) {
      for (std::size_t column = 0; column < headers.size(); ++column) {
        out += column ? gap : "";
        constexpr std::size_t state_column = 1;
        out += column == state_column
                 ? state_text(jobs_[index].state, widths[column])
                 : pad(rows[index][column], widths[column], right_aligned[column]);
      }
      out += '\n';
    }
  }

  if (!gpus_.empty()) {
    out += "\nGPU  ACTIVITY\n";
    for (const auto& [index, gpu] : gpus_) {
      std::string line = pad(std::to_string(index), std::string_view{"GPU"}.size(), false) +
                         std::string(column_gap, ' ');
      if (gpu.idle) {
        line += "idle since " + format_clock(gpu.since_ts);
      } else {
        event where;
        where.job = gpu.job;
        where.iter = gpu.iter;
        where.branch = gpu.branch;
        auto place = place_of(where);
        line += (place.empty() ? "" : place + ": ") + std::string{to_string(gpu.last)};
        if (!gpu.summary.empty())
          line += " " + gpu.summary;
        line += " at " + format_clock(gpu.since_ts);
        if (gpu.last == event_type::runner_failed)
          line = colour(line, ansi_red);
      }
      out += line + '\n';
    }
  }

  if (!problems_.empty()) {
    out += "\nPROBLEMS (latest " + std::to_string(problems_.size()) + " of " +
           std::to_string(problems_seen_) + ")\n";
    for (const auto& p : problems_) {
      std::string line = "#" + std::to_string(p.seq) + " " + format_clock(p.ts) + " " +
                         std::string{to_string(p.type)};
      if (!p.place.empty())
        line += " " + p.place;
      if (!p.message.empty())
        line += ": " + p.message;
      out += colour(line, is_warning(p.type) ? ansi_yellow : ansi_red) + '\n';
    }
  }
  return out;
}

std::string tail_view::render_line(const event& e) const {
  std::string line = "#" + std::to_string(e.seq) + " " + format_clock(e.ts) + " " +
                     std::string{to_string(e.type)};
  auto place = place_of(e);
  if (!place.empty())
    line += " " + place;
  auto detail = read_detail(e.detail_json);
  for (std::size_t index = 0; index < detail.size(); ++index) {
    line += index == 0 ? ": " : " ";
    const auto& member = detail[index];
    bool quote = !member.number && member.text.find(' ') != std::string::npos;
    line += member.key + "=" + (quote ? "\"" + member.text + "\"" : member.text);
  }
  if (is_problem(e.type))
    return colour(line, is_warning(e.type) ? ansi_yellow : ansi_red);
  return line;
}

} // namespace warpforge::feed
