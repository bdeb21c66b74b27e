#include "feed/tail_view.hpp"

#include "feed/event_text.hpp"

#include <algorithm>
#include <array>

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

std::string pad(std::string_view text, std::size_t width, bool right_aligned) {
  std::string padding(width > text.size() ? width - text.size() : 0, ' ');
  return right_aligned ? padding + std::string{text} : std::string{text} + padding;
}

} // namespace

tail_view::tail_view(tail_options options)
    : options_(options), view_(campaign_view_options{.problem_lines = options.problem_lines}) {}

bool tail_view::apply(const event& e) {
  return view_.apply(e);
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
  if (!view_.last_seq())
    return "warpforge tail: no events yet\n";

  out += "warpforge tail: " + std::to_string(view_.applied()) + " events, last seq " +
         std::to_string(*view_.last_seq()) + ", dropped by the feed " + std::to_string(view_.feed_dropped());
  if (view_.feed_dropped() > 0)
    out += colour(" (replay from the store to fill the gap)", ansi_yellow);
  out += '\n';

  for (const auto& campaign : view_.campaigns()) {
    out += "campaign " + campaign.name + ": " +
           state_text(campaign.state, to_string(campaign.state).size()) + " (since " +
           format_clock(campaign.started_ts) + " UTC, last event " +
           format_clock(campaign.last_ts) + " UTC)\n";
  }

  if (!view_.jobs().empty()) {
    bool several_campaigns = view_.campaigns().size() > 1;
    const std::array<std::string_view, 7> headers{"JOB",    "STATE",     "ITER",    "MEASURED",
                                                  "FAILED", "BEST TIME", "SPEED-UP"};
    const std::array<bool, 7> right_aligned{false, false, true, true, true, true, true};
    std::vector<std::array<std::string, 7>> rows;
    for (const auto& job : view_.jobs()) {
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
                 ? state_text(view_.jobs()[index].state, widths[column])
                 : pad(rows[index][column], widths[column], right_aligned[column]);
      }
      out += '\n';
    }
  }

  if (!view_.gpus().empty()) {
    out += "\nGPU  ACTIVITY\n";
    for (const auto& [index, gpu] : view_.gpus()) {
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

  if (!view_.problems().empty()) {
    out += "\nPROBLEMS (latest " + std::to_string(view_.problems().size()) + " of " +
           std::to_string(view_.problems_seen()) + ")\n";
    for (const auto& p : view_.problems()) {
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
  auto line = event_line(e);
  if (is_problem(e.type))
    return colour(line, is_warning(e.type) ? ansi_yellow : ansi_red);
  return line;
}

} // namespace warpforge::feed
