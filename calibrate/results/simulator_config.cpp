// Writing a simulator config fragment from results and a mapping (simulator.hpp).
#include "calibrate/results/number_format.hpp"
#include "calibrate/results/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace warpforge::calibrate {
namespace {

using result_index = std::map<std::string, const parameter_result*, std::less<>>;

// One part's text, or why it cannot be written.
struct part_text {
  std::string text;
  std::string problem;       // non-empty: the key is written as a comment, for this reason
  bool user_fills = false;   // a placeholder: the text is there for the user to complete
};

// The value of a passing parameter, or the reason there is none.
expected<double, std::string> input(const result_index& results, const std::string& name) {
  auto it = results.find(name);
  if (it == results.end())
    return unexpected(name + " was not measured");
  if (!is_passing(it->second->result))
    return unexpected(name + " is " + std::string{to_string(it->second->result)});
  if (!it->second->value)
    return unexpected(name + " was not measured (" + not_measured_reason(*it->second) + ")");
  return *it->second->value;
}

std::string integer_or_value(double value, bool integer) {
  if (!integer)
    return format_value(value);
  return std::to_string(std::llround(value));
}

part_text evaluate(const key_part& part, const result_index& results) {
  if (part.formula == part_formula::literal)
    return {part.text, {}};
  if (part.formula == part_formula::placeholder)
    return {part.text, "fill in " + part.text, true};
  std::vector<double> values;
  for (const auto& name : part.from) {
    auto v = input(results, name);
    if (!v)
      return {{}, v.error()};
    values.push_back(*v);
  }
  double out = 0;
  switch (part.formula) {
    case part_formula::value: out = values.at(0); break;
    case part_formula::difference: out = values.at(0) - values.at(1); break;
    case part_formula::product:
      out = 1;
      for (double v : values)
        out *= v;
      break;
    case part_formula::initiation_interval:
      if (values.at(0) <= 0)
        return {{}, part.from.at(0) + " is not positive"};
      // At least one cycle between issues: a unit cannot take two warps in one cycle.
      out = std::max(1.0, part.work / values.at(0));
      break;
    default: break;
  }
  out *= part.scale;
  if (!std::isfinite(out))
    return {{}, "the value is not a finite number"};
  return {integer_or_value(out, part.integer), {}};
}

// The comment naming each input with its value and status, and each literal's source.
std::string inputs_comment(const simulator_key& key, const result_index& results) {
  std::vector<std::string> seen;
  std::string out;
  for (const auto& part : key.parts) {
    for (const auto& name : part.from) {
      if (std::find(seen.begin(), seen.end(), name) != seen.end())
        continue;
      seen.push_back(name);
      auto it = results.find(name);
      out += (out.empty() ? "" : ", ") + name + " " +
             (it == results.end()       ? std::string{"not measured"}
              : !it->second->value ? "not measured (" + std::string{to_string(it->second->result)} + ")"
                                   : format_value(*it->second->value) + " " + it->second->unit + " (" +
                                       std::string{to_string(it->second->result)} + ")");
    }
    if (part.formula == part_formula::literal)
      out += (out.empty() ? "" : ", ") + std::string{"literal "} + part.text + " from " + part.source;
  }
  return out;
}

std::string render_key(const simulator_key& key, const result_index& results) {
  std::string value, problem;
  for (std::size_t i = 0; i < key.parts.size(); ++i) {
    const part_text part = evaluate(key.parts[i], results);
    if (!part.problem.empty() && problem.empty())
      problem = part.problem;
    const std::string shown = part.problem.empty() || part.user_fills ? part.text : "?";
    value += (i == 0 ? "" : key.separator) + shown;
  }
  std::string out = "# " + key.key + ": " + key.note + "\n";
  if (const std::string inputs = inputs_comment(key, results); !inputs.empty())
    out += "#   from " + inputs + "\n";
  if (!problem.empty())
    return out + "# " + key.key + " " + value + "    (not written: " + problem + ")\n";
  return out + key.key + " " + value + "\n";
}

std::string title(simulator target, const std::vector<parameter_result>& results) {
  std::string gpu, arch, when;
  for (const auto& r : results) {
    gpu = gpu.empty() ? r.gpu_name : gpu;
    arch = arch.empty() ? r.arch : arch;
    when = std::max(when, r.measured_at);
  }
  std::string out = target == simulator::accel_sim ? "# Accel-Sim config fragment"
                                                   : "# GPGPU-Sim config fragment";
  out += " from warpforge calibrate: " + (gpu.empty() ? std::string{"unknown GPU"} : gpu) + " (" +
         (arch.empty() ? std::string{"arch unknown"} : arch) + ")" +
         (when.empty() ? "" : ", measured until " + when) + "\n";
  out += "# Only parameters that passed (PASS, PASS_WITH_NOTE) are written; a key that cannot be\n"
         "# filled is a comment saying why. Mapping: calibrate/results/data/simulator_keys.toml\n";
  return out;
}

} // namespace

std::string simulator_config(simulator target, const std::vector<parameter_result>& results,
                             const simulator_mapping& mapping) {
  result_index index;
  for (const auto& r : results)
    index[r.name] = &r; // a later result of the same parameter wins
  std::string out = title(target, results);
  std::string file;
  for (const auto& key : mapping.keys) {
    if (std::find(key.simulators.begin(), key.simulators.end(), target) == key.simulators.end())
      continue;
    if (key.file != file) {
      file = key.file;
      out += "\n# ---- " + file + " ----\n";
    }
    out += render_key(key, index);
  }
  return out;
}

std::string accel_sim_config(const std::vector<parameter_result>& results) {
  auto mapping = built_in_simulator_mapping();
  if (!mapping) // the compiled-in table is tested; a failure here is a build that skipped them
    return "# Accel-Sim config fragment not written: " + mapping.error() + "\n";
  return simulator_config(simulator::accel_sim, results, *mapping);
}

std::string gpgpu_sim_config(const std::vector<parameter_result>& results) {
  auto mapping = built_in_simulator_mapping();
  if (!mapping)
    return "# GPGPU-Sim config fragment not written: " + mapping.error() + "\n";
  return simulator_config(simulator::gpgpu_sim, results, *mapping);
}

} // namespace warpforge::calibrate
