#include "diagnosis/metric_unit.hpp"

#include <cmath>
#include <cstdio>

namespace warpforge::diagnosis {

namespace {

struct unit_names {
  metric_unit unit;
  std::string_view name;   // metric_schema.toml spelling
  std::string_view symbol; // printed after a value
};

constexpr unit_names names[] = {
  {metric_unit::ratio, "ratio", "%"},
  {metric_unit::seconds, "seconds", "s"},
  {metric_unit::bytes, "bytes", "B"},
  {metric_unit::bytes_per_second, "bytes_per_second", "B/s"},
  {metric_unit::flop, "flop", "FLOP"},
  {metric_unit::flop_per_second, "flop_per_second", "FLOP/s"},
  {metric_unit::flop_per_byte, "flop_per_byte", "FLOP/B"},
  {metric_unit::instructions, "instructions", "inst"},
  {metric_unit::instructions_per_cycle, "instructions_per_cycle", "inst/cycle"},
  {metric_unit::cycles, "cycles", "cycles"},
  {metric_unit::sectors, "sectors", "sectors"},
  {metric_unit::requests, "requests", "requests"},
  {metric_unit::sectors_per_request, "sectors_per_request", "sectors/request"},
  {metric_unit::conflicts, "conflicts", "conflicts"},
  {metric_unit::registers_per_thread, "registers_per_thread", "registers/thread"},
  {metric_unit::blocks, "blocks", "blocks"},
  {metric_unit::threads, "threads", "threads"},
  {metric_unit::warps, "warps", "warps"},
  {metric_unit::waves, "waves", "waves"},
  {metric_unit::count, "count", ""},
};

const unit_names& entry(metric_unit unit) {
  for (const auto& e : names)
    if (e.unit == unit)
      return e;
  return names[std::size(names) - 1];
}

// The kinds of quantity that convert into each other only by a known factor.
enum class kind { ratio, time, bytes, bandwidth, dimensionless };

kind kind_of(metric_unit unit) {
  switch (unit) {
  case metric_unit::ratio: return kind::ratio;
  case metric_unit::seconds: return kind::time;
  case metric_unit::bytes: return kind::bytes;
  case metric_unit::bytes_per_second: return kind::bandwidth;
  default: return kind::dimensionless;
  }
}

std::string_view kind_name(kind k) {
  switch (k) {
  case kind::ratio: return "a percentage";
  case kind::time: return "a duration";
  case kind::bytes: return "a byte count";
  case kind::bandwidth: return "a bandwidth";
  case kind::dimensionless: return "a count";
  }
  return "a count";
}

// 1e3^k for an SI prefix letter as ncu writes it (K, M, G, T, P), else 0.
double prefix_factor(char c) {
  switch (c) {
  case 'K': return 1e3;
  case 'M': return 1e6;
  case 'G': return 1e9;
  case 'T': return 1e12;
  case 'P': return 1e15;
  default: return 0.0;
  }
}

constexpr std::string_view count_words[] = {"inst",     "cycle",  "sector",   "request", "warp",
                                            "block",    "thread", "register", "wavefront"};

struct parsed_unit {
  kind what = kind::dimensionless;
  double factor = 1.0; // multiply an Nsight value by this to get warpforge's base unit
};

parsed_unit parse_nsight_unit(std::string_view unit) {
  if (unit == "%")
    return {kind::ratio, 0.01};
  struct time_unit {
    std::string_view name;
    double factor;
  };
  constexpr time_unit times[] = {{"nsecond", 1e-9}, {"usecond", 1e-6}, {"msecond", 1e-3},
                                 {"second", 1.0},   {"ns", 1e-9},      {"us", 1e-6},
                                 {"ms", 1e-3},      {"s", 1.0}};
  for (const auto& t : times)
    if (unit == t.name)
      return {kind::time, t.factor};

  const auto slash = unit.find('/');
  const std::string_view head = unit.substr(0, slash);
  const std::string_view tail = slash == std::string_view::npos ? "" : unit.substr(slash + 1);
  double factor = 1.0;
  std::string_view word = head;
  if (word.size() > 1 && prefix_factor(word[0]) != 0.0 && word[1] >= 'a' && word[1] <= 'z') {
    const std::string_view rest = word.substr(1);
    bool known = rest == "byte";
    for (const auto w : count_words)
      known = known || rest == w;
    if (known) {
      factor = prefix_factor(word[0]);
      word = rest;
    }
  }
  if (word == "byte")
    return {tail == "second" ? kind::bandwidth : kind::bytes, factor};
  return {kind::dimensionless, factor};
}

} // namespace

std::string_view to_string(metric_unit unit) { return entry(unit).name; }

std::optional<metric_unit> metric_unit_from_string(std::string_view text) {
  for (const auto& e : names)
    if (e.name == text)
      return e.unit;
  return std::nullopt;
}

std::string_view symbol(metric_unit unit) { return entry(unit).symbol; }

namespace {

std::string printf_text(const char* format, double value, std::string_view suffix) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  std::string out{buffer};
  if (!suffix.empty()) {
    out += ' ';
    out += suffix;
  }
  return out;
}

// 3 significant digits with an SI prefix: 2.15 G<suffix>.
std::string si_text(double value, std::string_view base_symbol) {
  constexpr std::string_view prefixes[] = {"", "K", "M", "G", "T", "P", "E"};
  std::size_t index = 0;
  double scaled = value;
  while (std::fabs(scaled) >= 1000.0 && index + 1 < std::size(prefixes)) {
    scaled /= 1000.0;
    ++index;
  }
  return printf_text("%.3g", scaled, std::string{prefixes[index]} + std::string{base_symbol});
}

std::string time_text(double seconds) {
  const double magnitude = std::fabs(seconds);
  if (magnitude == 0.0)
    return "0 s";
  if (magnitude < 1e-6)
    return printf_text("%.3g", seconds * 1e9, "ns");
  if (magnitude < 1e-3)
    return printf_text("%.3g", seconds * 1e6, "us");
  if (magnitude < 1.0)
    return printf_text("%.3g", seconds * 1e3, "ms");
  return printf_text("%.3g", seconds, "s");
}

} // namespace

std::string format_value(double value, metric_unit unit) {
  if (!std::isfinite(value))
    return "n/a";
  switch (unit) {
  case metric_unit::ratio: return printf_text("%.1f", value * 100.0, "%");
  case metric_unit::seconds: return time_text(value);
  case metric_unit::bytes:
  case metric_unit::bytes_per_second:
  case metric_unit::flop:
  case metric_unit::flop_per_second: return si_text(value, symbol(unit));
  default: break;
  }
  const bool integral = std::fabs(value) < 1e15 && value == std::floor(value);
  return printf_text(integral ? "%.0f" : "%.3g", value, symbol(unit));
}

expected<double, std::string> from_nsight(double value, std::string_view nsight_unit,
                                          metric_unit target) {
  const parsed_unit source = parse_nsight_unit(nsight_unit);
  const kind wanted = kind_of(target);
  if (source.what != wanted)
    return unexpected(std::string{"Nsight unit '"} + std::string{nsight_unit} + "' is " +
                      std::string{kind_name(source.what)} + ", but the schema unit '" +
                      std::string{to_string(target)} + "' needs " +
                      std::string{kind_name(wanted)});
  return value * source.factor;
}

std::string_view nsight_base_unit(metric_unit target) {
  switch (kind_of(target)) {
  case kind::ratio: return "%";
  case kind::time: return "nsecond";
  case kind::bytes: return "byte";
  case kind::bandwidth: return "byte/second";
  case kind::dimensionless: return "";
  }
  return "";
}

} // namespace warpforge::diagnosis
