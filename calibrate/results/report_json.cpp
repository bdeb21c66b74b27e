// render_json and read_json: the programmatic export of a calibrate run (report.hpp).
#include "calibrate/results/report.hpp"

#include "foundation/json/writer.hpp"

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace warpforge::calibrate {
namespace {

constexpr std::string_view schema = "warpforge.calibrate.results/1";

// A number, or null when it was not measured (the reason is written beside it).
void number_or_null(json::writer& w, std::string_view key, std::optional<double> number) {
  w.key(key);
  number ? w.value(*number) : w.null();
}

// A reason, or null when there is nothing to explain.
void reason_or_null(json::writer& w, std::string_view key, const std::string& reason) {
  w.key(key);
  reason.empty() ? w.null() : w.value(reason);
}

std::optional<double> if_set(bool set, double number) {
  return set ? std::optional<double>{number} : std::nullopt;
}

// Statistics that were not measured are null, never 0: the centre needs a kept trial, the spread
// two that differ, the CI's bounds a kept trial and not all identical (trials.hpp);
// `not_measured_reason` says why any is null. read_stats restores identical trials' zeros.
void write_stats(json::writer& w, const trial_stats& s) {
  const bool center = has_center(s), spread = has_spread(s), interval = has_interval(s);
  w.key("stats").begin_object();
  w.key("n").value(static_cast<std::uint64_t>(s.n));
  w.key("discarded").value(static_cast<std::uint64_t>(s.discarded));
  w.key("invalid").value(static_cast<std::uint64_t>(s.invalid));
  number_or_null(w, "median", if_set(center, s.median));
  number_or_null(w, "mean", if_set(center, s.mean));
  number_or_null(w, "stddev", if_set(spread, s.stddev));
  number_or_null(w, "cv", if_set(spread, s.cv));
  number_or_null(w, "ci95_low", if_set(interval, s.ci95_low));
  number_or_null(w, "ci95_high", if_set(interval, s.ci95_high));
  number_or_null(w, "ci_level", if_set(s.n >= 2, s.ci_level)); // the coverage n trials give
  number_or_null(w, "max_clock_mhz", if_set(s.max_clock_mhz > 0, s.max_clock_mhz)); // 0: no clock known
  reason_or_null(w, "not_measured_reason", missing_spread_reason(s));
  w.end_object();
}

void write_result(json::writer& w, const parameter_result& r) {
  w.begin_object();
  w.key("name").value(r.name).key("unit").value(r.unit);
  w.key("status").value(to_string(r.result));
  number_or_null(w, "value", r.value);
  reason_or_null(w, "not_measured_reason", not_measured_reason(r));
  write_stats(w, r.stats);
  w.key("known");
  if (r.known)
    w.begin_object().key("arch").value(r.known->arch).key("value").value(r.known->value)
        .key("source").value(r.known->source).end_object();
  else
    w.null();
  // (value - known) / known, 1.0 = 100%; null without a measured value or a known one.
  number_or_null(w, "delta", r.value ? relative_delta(*r.value, r.known) : std::nullopt);
  w.key("sass_verdict").value(r.sass_verdict).key("counter_verdict").value(r.counter_verdict);
  w.key("arch").value(r.arch).key("gpu_name").value(r.gpu_name);
  w.key("notes").begin_array();
  for (const auto& note : r.notes)
    w.value(note);
  w.end_array();
  w.key("curve").begin_array(); // x: working-set bytes, y: cycles
  for (const auto& p : r.curve)
    w.begin_object().key("x").value(p.x).key("y").value(p.y).end_object();
  w.end_array();
  w.key("benchmark_file").value(r.benchmark_file).key("measured_at").value(r.measured_at);
  w.end_object();
}

// Reads fields of one JSON document, keeping the first error (with its JSON pointer). After an
// error every read returns a default value and touches nothing.
struct field_reader {
  std::string error;

  std::optional<simdjson::dom::element> at(simdjson::dom::element object, const std::string& path,
                                           std::string_view key) {
    simdjson::dom::element out;
    if (!error.empty())
      return std::nullopt;
    if (object.type() != simdjson::dom::element_type::OBJECT || object[key].get(out) != simdjson::SUCCESS) {
      error = "missing " + path + "/" + std::string{key};
      return std::nullopt;
    }
    return out;
  }
  void wrong(const std::string& path, std::string_view key, std::string_view what) {
    if (error.empty())
      error = path + "/" + std::string{key} + " is not " + std::string{what};
  }
  double number(simdjson::dom::element object, const std::string& path, std::string_view key) {
    double out = 0;
    auto e = at(object, path, key);
    if (e && !e->is_null() && e->get_double().get(out) != simdjson::SUCCESS)
      wrong(path, key, "a number");
    return out; // null: not measured (or a non-finite number), read as 0 (trials.hpp)
  }
  // A number, or nullopt for null: what was not measured stays not measured.
  std::optional<double> number_or_absent(simdjson::dom::element object, const std::string& path,
                                         std::string_view key) {
    auto e = at(object, path, key);
    if (!e || e->is_null())
      return std::nullopt;
    double out = 0;
    if (e->get_double().get(out) != simdjson::SUCCESS) {
      wrong(path, key, "a number or null");
      return std::nullopt;
    }
    return out;
  }
  std::size_t count(simdjson::dom::element object, const std::string& path, std::string_view key) {
    std::uint64_t out = 0;
    if (auto e = at(object, path, key); e && e->get_uint64().get(out) != simdjson::SUCCESS)
      wrong(path, key, "a count");
    return static_cast<std::size_t>(out);
  }
  std::string text(simdjson::dom::element object, const std::string& path, std::string_view key) {
    std::string_view out;
    if (auto e = at(object, path, key); e && e->get_string().get(out) != simdjson::SUCCESS)
      wrong(path, key, "a string");
    return std::string{out};
  }
  // The array's elements (handles into the parser's document); empty after an error.
  std::vector<simdjson::dom::element> array(simdjson::dom::element object, const std::string& path,
                                            std::string_view key) {
    std::vector<simdjson::dom::element> out;
    simdjson::dom::array found;
    auto e = at(object, path, key);
    if (!e)
      return out;
    if (e->get_array().get(found) != simdjson::SUCCESS) {
      wrong(path, key, "an array");
      return out;
    }
    for (simdjson::dom::element item : found)
      out.push_back(item);
    return out;
  }
};

trial_stats read_stats(field_reader& f, simdjson::dom::element e, const std::string& path) {
  trial_stats s;
  s.n = f.count(e, path, "n");
  s.discarded = f.count(e, path, "discarded");
  s.invalid = f.count(e, path, "invalid");
  s.median = f.number(e, path, "median");
  s.mean = f.number(e, path, "mean");
  s.stddev = f.number(e, path, "stddev");
  s.cv = f.number(e, path, "cv");
  s.ci95_low = f.number(e, path, "ci95_low");
  s.ci95_high = f.number(e, path, "ci95_high");
  s.ci_level = f.number(e, path, "ci_level");
  s.max_clock_mhz = f.number(e, path, "max_clock_mhz");
  if (all_identical(s)) // written as null: every trial was the median
    s.ci95_low = s.ci95_high = s.median;
  return s;
}

parameter_result read_result(field_reader& f, simdjson::dom::element e, const std::string& path) {
  parameter_result r;
  r.name = f.text(e, path, "name");
  r.unit = f.text(e, path, "unit");
  const std::string status_text = f.text(e, path, "status");
  if (auto s = status_from_string(status_text))
    r.result = *s;
  else if (f.error.empty())
    f.error = path + "/status: unknown status '" + status_text + "'";
  r.value = f.number_or_absent(e, path, "value");
  if (auto stats = f.at(e, path, "stats"))
    r.stats = read_stats(f, *stats, path + "/stats");
  // Written by an older warpforge, which said 0 where no trial was kept: nothing was measured.
  if (r.value && *r.value == 0 && r.stats.n == 0)
    r.value.reset();
  if (auto known = f.at(e, path, "known"); known && !known->is_null())
    r.known = known_value{f.text(*known, path + "/known", "arch"),
                          f.number(*known, path + "/known", "value"),
                          f.text(*known, path + "/known", "source")};
  r.sass_verdict = f.text(e, path, "sass_verdict");
  r.counter_verdict = f.text(e, path, "counter_verdict");
  r.arch = f.text(e, path, "arch");
  r.gpu_name = f.text(e, path, "gpu_name");
  std::size_t i = 0;
  for (simdjson::dom::element note : f.array(e, path, "notes")) {
    std::string_view text;
    if (f.error.empty() && note.get_string().get(text) != simdjson::SUCCESS)
      f.error = path + "/notes/" + std::to_string(i) + " is not a string";
    r.notes.emplace_back(text);
    ++i;
  }
  i = 0;
  for (simdjson::dom::element point : f.array(e, path, "curve")) {
    const std::string at = path + "/curve/" + std::to_string(i++);
    r.curve.push_back({f.number(point, at, "x"), f.number(point, at, "y")});
  }
  r.benchmark_file = f.text(e, path, "benchmark_file");
  r.measured_at = f.text(e, path, "measured_at");
  return r;
}

} // namespace

std::string render_json(const std::vector<parameter_result>& results) {
  json::writer w;
  w.begin_object().key("schema").value(schema).key("parameters").begin_array();
  for (const auto& r : results)
    write_result(w, r);
  w.end_array().end_object();
  return std::move(w).str();
}

expected<std::vector<parameter_result>, std::string> read_json(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto code = parser.parse(text.data(), text.size()).get(root); code != simdjson::SUCCESS)
    return unexpected("calibrate results: not JSON (" + std::string{simdjson::error_message(code)} + ")");
  field_reader f;
  if (const std::string found = f.text(root, "", "schema"); f.error.empty() && found != schema)
    return unexpected("calibrate results: /schema is '" + found + "', expected '" +
                      std::string{schema} + "'");
  std::vector<parameter_result> out;
  std::size_t i = 0;
  for (simdjson::dom::element entry : f.array(root, "", "parameters")) {
    if (!f.error.empty())
      break;
    out.push_back(read_result(f, entry, "/parameters/" + std::to_string(i++)));
  }
  if (!f.error.empty())
    return unexpected("calibrate results: " + f.error);
  return out;
}

} // namespace warpforge::calibrate
