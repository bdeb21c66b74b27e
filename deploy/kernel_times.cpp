#include "deploy/kernel_times.hpp"

#include "foundation/json/writer.hpp"
#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/stats/sample_stats.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpforge::deploy {

namespace {

constexpr std::string_view total_name = "all kernels";

void summarize(kernel_time& time) {
  const auto stats = gpu::summarize(time.samples);
  time.median = stats.median_s;
  time.spread = stats.max_s - stats.min_s;
}

double median_or_zero(const std::optional<kernel_time>& side) { return side ? side->median : 0.0; }

kernel_change change_of(std::string kernel, bool named, std::optional<kernel_time> before,
                        std::optional<kernel_time> after) {
  kernel_change c{std::move(kernel), named, std::move(before), std::move(after), kernel_verdict::within_noise};
  const double delta = median_or_zero(c.after) - median_or_zero(c.before);
  if (delta > c.noise())
    c.verdict = kernel_verdict::slower;
  else if (-delta > c.noise())
    c.verdict = kernel_verdict::faster;
  return c;
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", seconds * 1e3);
  return text;
}

void write_time(json::writer& out, const std::optional<kernel_time>& side) {
  if (!side) {
    out.null();
    return;
  }
  out.begin_object();
  out.key("samples_s").begin_array();
  for (double v : side->samples)
    out.value(v);
  out.end_array();
  out.key("median_s").value(side->median);
  out.key("spread_s").value(side->spread);
  out.key("launches").value(side->launches);
  out.end_object();
}

void write_change(json::writer& out, const kernel_change& c) {
  out.begin_object();
  out.key("kernel").value(c.kernel);
  out.key("named").value(c.named);
  out.key("verdict").value(to_string(c.verdict));
  out.key("before");
  write_time(out, c.before);
  out.key("after");
  write_time(out, c.after);
  out.end_object();
}

using json_error = std::string;

expected<std::optional<kernel_time>, json_error> read_time(simdjson::dom::element element, std::string_view where) {
  if (element.is_null())
    return std::optional<kernel_time>{};
  kernel_time t;
  simdjson::dom::array samples;
  if (element["samples_s"].get(samples) != simdjson::SUCCESS || element["median_s"].get(t.median) != simdjson::SUCCESS ||
      element["spread_s"].get(t.spread) != simdjson::SUCCESS || element["launches"].get(t.launches) != simdjson::SUCCESS)
    return unexpected{std::string{where} + ": needs samples_s, median_s, spread_s and launches"};
  for (auto v : samples) {
    double d = 0;
    if (v.get(d) != simdjson::SUCCESS)
      return unexpected{std::string{where} + ": samples_s holds a value that is not a number"};
    t.samples.push_back(d);
  }
  return std::optional<kernel_time>{std::move(t)};
}

expected<kernel_change, json_error> read_change(simdjson::dom::element element, std::string_view where) {
  kernel_change c;
  std::string_view kernel, verdict;
  if (element["kernel"].get(kernel) != simdjson::SUCCESS || element["named"].get(c.named) != simdjson::SUCCESS ||
      element["verdict"].get(verdict) != simdjson::SUCCESS)
    return unexpected{std::string{where} + ": needs kernel, named and verdict"};
  c.kernel = kernel;
  auto v = kernel_verdict_from_string(verdict);
  if (!v)
    return unexpected{std::string{where} + ": unknown verdict '" + std::string{verdict} + "'"};
  c.verdict = *v;
  simdjson::dom::element before, after;
  if (element["before"].get(before) != simdjson::SUCCESS || element["after"].get(after) != simdjson::SUCCESS)
    return unexpected{std::string{where} + ": needs before and after (null where not launched)"};
  auto b = read_time(before, std::string{where} + ".before");
  if (!b)
    return unexpected{b.error()};
  auto a = read_time(after, std::string{where} + ".after");
  if (!a)
    return unexpected{a.error()};
  c.before = std::move(*b);
  c.after = std::move(*a);
  return c;
}

expected<kernel_comparison, json_error> read_comparison(simdjson::dom::element root) {
  kernel_comparison out;
  if (root["timed"].get(out.timed) != simdjson::SUCCESS)
    return unexpected{std::string{"kernels: needs timed (true or false)"}};
  if (!out.timed)
    return out;
  simdjson::dom::array rows;
  if (root["rows"].get(rows) != simdjson::SUCCESS)
    return unexpected{std::string{"kernels: needs rows"}};
  std::size_t n = 0;
  for (auto row : rows) {
    auto c = read_change(row, "kernels.rows[" + std::to_string(n++) + "]");
    if (!c)
      return unexpected{c.error()};
    out.rows.push_back(std::move(*c));
  }
  simdjson::dom::element total;
  if (root["total"].get(total) != simdjson::SUCCESS)
    return unexpected{std::string{"kernels: needs total"}};
  auto t = read_change(total, "kernels.total");
  if (!t)
    return unexpected{t.error()};
  out.total = std::move(*t);
  return out;
}

} // namespace

constexpr vocabulary::enum_word<kernel_verdict> kernel_verdict_words[] = {
    {kernel_verdict::faster, "faster"},
    {kernel_verdict::within_noise, "within_noise"},
    {kernel_verdict::slower, "slower"},
};
static_assert(vocabulary::covers(kernel_verdict_words, all_kernel_verdicts));

std::string_view to_string(kernel_verdict verdict) { return vocabulary::word_of(kernel_verdict_words, verdict); }

std::optional<kernel_verdict> kernel_verdict_from_string(std::string_view text) {
  return vocabulary::value_of(kernel_verdict_words, text);
}

double kernel_change::noise() const {
  return std::max(before ? before->spread : 0.0, after ? after->spread : 0.0);
}

program_kernels tally_kernels(const std::vector<std::vector<launch_time>>& runs) {
  program_kernels out;
  for (const auto& run : runs)
    for (const auto& launch : run) {
      out.by_kernel.try_emplace(launch.kernel);
      out.named[launch.kernel] = out.named[launch.kernel] || launch.named;
    }
  for (auto& [name, time] : out.by_kernel)
    time.samples.assign(runs.size(), 0.0);
  out.total.samples.assign(runs.size(), 0.0);
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (const auto& launch : runs[r]) {
      auto& time = out.by_kernel[launch.kernel];
      time.samples[r] += launch.duration_s;
      ++time.launches;
      out.total.samples[r] += launch.duration_s;
      ++out.total.launches;
    }
  for (auto& [name, time] : out.by_kernel)
    summarize(time);
  summarize(out.total);
  return out;
}

kernel_comparison compare_kernels(const program_kernels& before, const program_kernels& after) {
  kernel_comparison out;
  out.timed = true;
  std::map<std::string, bool> names = before.named; // by name; named on either side
  for (const auto& [name, named] : after.named)
    names[name] = names[name] || named;
  auto side = [](const program_kernels& p, const std::string& name) -> std::optional<kernel_time> {
    auto found = p.by_kernel.find(name);
    return found == p.by_kernel.end() ? std::nullopt : std::optional{found->second};
  };
  for (bool named_pass : {true, false})
    for (const auto& [name, named] : names)
      if (named == named_pass)
        out.rows.push_back(change_of(name, named, side(before, name), side(after, name)));
  out.total = change_of(std::string{total_name}, false, before.total, after.total);
  return out;
}

kernel_comparison untimed_kernels() { return kernel_comparison{}; }

std::vector<const kernel_change*> slower_others(const kernel_comparison& comparison) {
  std::vector<const kernel_change*> out;
  for (const auto& row : comparison.rows)
    if (!row.named && row.verdict == kernel_verdict::slower)
      out.push_back(&row);
  return out;
}

bool total_grew(const kernel_comparison& comparison) {
  return comparison.total && median_or_zero(comparison.total->after) > median_or_zero(comparison.total->before);
}

std::vector<const kernel_change*> launches_changed(const kernel_comparison& comparison) {
  auto launches = [](const std::optional<kernel_time>& side) { return side ? side->launches : 0; };
  std::vector<const kernel_change*> out;
  for (const auto& row : comparison.rows)
    if (launches(row.before) != launches(row.after))
      out.push_back(&row);
  return out;
}

std::string launches_text(const kernel_change& c) {
  auto launches = [](const std::optional<kernel_time>& side) { return side ? side->launches : 0; };
  return c.kernel + " " + std::to_string(launches(c.before)) + " -> " + std::to_string(launches(c.after)) +
         " launches";
}

std::string change_text(const kernel_change& c) {
  auto side = [](const std::optional<kernel_time>& t) { return t ? milliseconds(t->median) : std::string{"not launched"}; };
  std::string text = c.kernel + " " + side(c.before) + " -> " + side(c.after) + " ms";
  if (c.before && c.after && c.before->median > 0) {
    char change[32];
    std::snprintf(change, sizeof change, "%+.1f%%", (c.after->median / c.before->median - 1.0) * 100.0);
    text += std::string{" ("} + change + ", noise " + milliseconds(c.noise()) + " ms)";
  } else {
    text += " (noise " + milliseconds(c.noise()) + " ms)";
  }
  return text;
}

std::vector<std::string> comparison_lines(const kernel_comparison& comparison) {
  if (!comparison.timed)
    return {std::string{untimed_note}};
  std::vector<std::string> out;
  auto line = [](const kernel_change& c) {
    return change_text(c) + ": " + std::string{to_string(c.verdict)} + (c.named ? " (the deployed kernel)" : "");
  };
  for (const auto& row : comparison.rows)
    out.push_back(line(row));
  if (comparison.total)
    out.push_back(line(*comparison.total));
  return out;
}

std::string comparison_json(const kernel_comparison& comparison) {
  json::writer out;
  out.begin_object();
  out.key("timed").value(comparison.timed);
  if (!comparison.timed) {
    out.key("note").value(untimed_note);
  } else {
    out.key("rows").begin_array();
    for (const auto& row : comparison.rows)
      write_change(out, row);
    out.end_array();
    if (comparison.total) {
      out.key("total");
      write_change(out, *comparison.total);
    }
  }
  out.end_object();
  return std::move(out).str();
}

expected<kernel_comparison, std::string> comparison_from_json(std::string_view json_text) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  const simdjson::padded_string padded{json_text};
  if (parser.parse(padded).get(root) != simdjson::SUCCESS)
    return unexpected{std::string{"kernels: not JSON"}};
  return read_comparison(root);
}

expected<std::optional<kernel_comparison>, std::string> comparison_in_journal(std::string_view journal_text) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  const simdjson::padded_string padded{journal_text};
  if (parser.parse(padded).get(root) != simdjson::SUCCESS)
    return unexpected{std::string{"the journal is not JSON"}};
  simdjson::dom::element kernels;
  if (root["kernels"].get(kernels) != simdjson::SUCCESS)
    return std::optional<kernel_comparison>{};
  auto read = read_comparison(kernels);
  if (!read)
    return unexpected{read.error()};
  return std::optional<kernel_comparison>{std::move(*read)};
}

} // namespace warpforge::deploy
