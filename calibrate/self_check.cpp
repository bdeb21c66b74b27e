// self_check(): what a catalog says, checked (the seed's `python parameter_catalog.py`). Each rule
// is one small function adding "file:line: name: problem" lines; dependency cycles are found by a
// depth-first walk that names the cycle in order.
#include "calibrate/catalog.hpp"

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>

namespace warpforge::calibrate {
namespace {

class problems {
public:
  explicit problems(const catalog& parameters) : file_(parameters.file()) {}

  void add(const parameter& where, const std::string& what) {
    std::string place = file_;
    if (where.line != 0)
      place += ":" + std::to_string(where.line);
    lines_.push_back(place + ": " + (where.name.empty() ? "(unnamed)" : where.name) + ": " + what);
  }
  std::vector<std::string> take() && { return std::move(lines_); }

private:
  std::string file_;
  std::vector<std::string> lines_;
};

bool is_name(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string number(double value) {
  std::string text = std::to_string(value);
  text.erase(text.find_last_not_of('0') + 1);
  if (!text.empty() && text.back() == '.')
    text.pop_back();
  return text;
}

void check_fields(const parameter& p, problems& out) {
  if (!is_name(p.name))
    out.add(p, "the name must be lower-case letters, digits and '_'");
  if (p.priority < 1 || p.priority > lowest_priority)
    out.add(p, "priority " + std::to_string(p.priority) + " is outside 1..4");
  const std::pair<const std::string*, const char*> texts[] = {
      {&p.unit, "unit"}, {&p.technique, "technique"}, {&p.description, "description"}};
  for (const auto& [text, field] : texts)
    if (text->empty())
      out.add(p, std::string{field} + " is empty");
  if (p.validation_metrics.empty())
    out.add(p, "validation_metrics is empty (name the Nsight metrics that corroborate it)");
  // Every priority has built-in benchmarks, and each states the SASS its code must contain.
  if (p.expected_sass.empty())
    out.add(p, "expected_sass is empty; the parameter's benchmark must state its SASS");
  // The profiling pass reads the validation metrics only: a formula over others has nothing to use.
  if (p.rederive) {
    for (const auto* metric : {&p.rederive->count, &p.rederive->over})
      if (std::find(p.validation_metrics.begin(), p.validation_metrics.end(), *metric) ==
          p.validation_metrics.end())
        out.add(p, "rederive uses " + (metric->empty() ? std::string{"an empty metric"} : *metric) +
                       ", which validation_metrics does not list");
    if (!(p.rederive->scale > 0))
      out.add(p, "rederive's scale " + number(p.rederive->scale) + " is not positive");
  }
  // Only a size's curve has a knee or a miss line to read.
  if (p.size_from != size_rule::onset && p.unit != "KiB" && p.unit != "MiB")
    out.add(p, "size_from applies to cache sizes (KiB, MiB), not " + p.unit);
}

void check_range_and_known(const parameter& p, problems& out) {
  if (!(p.range_min < p.range_max))
    out.add(p, "range [" + number(p.range_min) + ", " + number(p.range_max) +
                   "] is empty: its low end must be below its high end");
  std::set<std::string> arches;
  for (const auto& known : p.known) {
    if (known.arch.empty())
      out.add(p, "a known value has no arch");
    else if (!arches.insert(known.arch).second)
      out.add(p, "two known values for " + known.arch);
    if (known.source.empty())
      out.add(p, "the known value for " + known.arch + " cites no source");
    if (known.value < p.range_min || known.value > p.range_max)
      out.add(p, "known value " + number(known.value) + " " + p.unit + " for " + known.arch +
                     " is outside its own range [" + number(p.range_min) + ", " +
                     number(p.range_max) + "]");
  }
}

// A memory latency or a cache size: the figures whose value depends on how it is measured.
bool is_memory_latency_or_size(const parameter& p) {
  return (p.group == category::cache_hierarchy || p.group == category::shared_memory) &&
         (p.unit == "cycles" || p.unit == "KiB" || p.unit == "MiB");
}

void check_literature(const parameter& p, problems& out) {
  for (const auto& figure : p.literature) {
    if (std::find(published_figures.begin(), published_figures.end(), figure.figure) ==
        published_figures.end())
      out.add(p, "literature figure '" + figure.figure + "' is not value, raw_chase or index_chase");
    if (figure.method.empty() || figure.source.empty() || figure.arch.empty() || figure.gpu.empty())
      out.add(p, "a literature figure lacks its method, source, arch or gpu");
  }
  if (!is_memory_latency_or_size(p))
    return;
  if (p.method.empty())
    out.add(p, "a memory latency or cache size needs its method");
  // A known value (a spec sheet's) carries no method, so it cannot stand beside a figure measured
  // the same way: a memory figure needs a literature figure, or what was searched for one.
  if (p.literature.empty() && p.literature_not_found.empty())
    out.add(p, "no published figure with its method (literature) and no literature_not_found saying what was searched");
}

void check_dependencies(const catalog& parameters, const parameter& p, problems& out) {
  std::set<std::string_view> seen;
  for (const auto& name : p.depends_on) {
    if (!seen.insert(name).second) {
      out.add(p, "depends on " + name + " twice");
      continue;
    }
    if (name == p.name) {
      out.add(p, "depends on itself");
      continue;
    }
    const parameter* dependency = parameters.find(name);
    if (dependency == nullptr)
      out.add(p, "depends on unknown parameter '" + name + "'");
    else if (dependency->priority > p.priority)
      out.add(p, "depends on " + name + " of priority " + std::to_string(dependency->priority) +
                     ", later than its own " + std::to_string(p.priority) +
                     " (a dependency is measured first, so it needs a priority number no larger)");
  }
}

// Depth-first walk over depends_on; a dependency found on the current path closes a cycle, which
// is reported once (from its first member in catalog order), its names in dependency order.
class cycle_finder {
public:
  explicit cycle_finder(const catalog& parameters) : parameters_(parameters) {}

  void run(problems& out) {
    for (const auto& p : parameters_.parameters())
      visit(p, out);
  }

private:
  enum class mark { unvisited, on_path, done };

  void visit(const parameter& p, problems& out) {
    if (marks_[p.name] != mark::unvisited)
      return;
    marks_[p.name] = mark::on_path;
    path_.push_back(&p);
    for (const auto& name : p.depends_on) {
      const parameter* next = parameters_.find(name);
      if (next == nullptr || next == &p)
        continue; // reported by check_dependencies
      if (marks_[name] == mark::on_path)
        report(*next, out);
      else
        visit(*next, out);
    }
    path_.pop_back();
    marks_[p.name] = mark::done;
  }

  void report(const parameter& start, problems& out) {
    auto first = std::find(path_.begin(), path_.end(), &start);
    std::string chain;
    for (auto it = first; it != path_.end(); ++it)
      chain += (*it)->name + " -> ";
    out.add(start, "dependency cycle: " + chain + start.name);
  }

  const catalog& parameters_;
  std::map<std::string, mark, std::less<>> marks_;
  std::vector<const parameter*> path_;
};

} // namespace

std::vector<std::string> self_check(const catalog& parameters) {
  problems out{parameters};
  std::map<std::string, std::uint32_t, std::less<>> first_line;
  for (const auto& p : parameters.parameters()) {
    if (auto [it, inserted] = first_line.emplace(p.name, p.line); !inserted)
      out.add(p, "duplicate name (first at line " + std::to_string(it->second) + ")");
    check_fields(p, out);
    check_range_and_known(p, out);
    check_literature(p, out);
    check_dependencies(parameters, p, out);
  }
  cycle_finder{parameters}.run(out);
  return std::move(out).take();
}

} // namespace warpforge::calibrate
