#pragma once
// Events as people read them: detail members read for display, an event's place and one-line
// summary, and the units every view prints in. tail_view, campaign_view, progress_view and the
// dashboard all read and write events through these, so they say the same thing the same way.

#include "feed/event.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::feed {

/// One top-level member of an event's detail, read for display.
struct detail_member {
  std::string key;
  std::optional<double> number; // set for JSON numbers
  std::string text;             // a string's content, or the JSON text of any other value
};
using detail_members = std::vector<detail_member>;

/// Reads detail_json's top-level members, in order; none when it is not a JSON object.
detail_members read_detail(std::string_view detail_json);

std::optional<double> number_of(const detail_members& members, std::string_view key);
std::optional<std::string> text_of(const detail_members& members, std::string_view key);

/// "nightly/gemm": campaign and job, whichever are set.
std::string job_label(std::string_view campaign, std::string_view job);

/// "nightly/gemm iter 3 branch 5 gpu 1", leaving out what the event is not about.
std::string place_of(const event& e);

/// Errors, warnings, failures and restarts: what a person must see.
bool is_problem(event_type type);
/// Problems that do not stop work by themselves (a restart, a warning, an interruption).
bool is_warning(event_type type);

/// A problem's message: detail's message or reason, then the members that identify it
/// ("illegal address [attempt=1 exit_code=139]").
std::string problem_message(const detail_members& detail);

/// "#42 21:03:04 branch_measured nightly/gemm iter 3 branch 5 gpu 0: time_s=0.00123 cv=0.01":
/// seq, UTC time, type, place, every detail member; a null member (not measured) reads
/// `value="not measured"`.
std::string event_line(const event& e);

/// "1.23 ms": vocabulary::time_text (3 significant digits, the largest unit that keeps it >= 1).
std::string format_seconds(double seconds);
/// "2.50x": vocabulary::speedup_text.
std::string format_speedup(double ratio);
/// "21:03:04": the UTC time of day of a unix time [s]; "--:--:--" when not finite.
std::string format_clock(double unix_s);
/// "1:02:03" (hours, minutes, seconds) for a duration [s]; negative durations read as 0.
std::string format_duration(double seconds);
/// "93.0%" for a ratio (1.0 = 100 %): vocabulary::fraction_text.
std::string format_percent(double ratio);

} // namespace warpforge::feed
