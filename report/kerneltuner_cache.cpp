#include "report/kerneltuner_cache.hpp"

#include "report/tunable_values.hpp"

#include "foundation/files/atomic_write.hpp"
#include "foundation/json/writer.hpp"
#include "storage/run_directory.hpp"

#include <algorithm>
#include <ctime>
#include <map>
#include <optional>

namespace warpforge::report {
namespace {

constexpr double ms_per_s = 1e3;

// Kernel Tuner's word for a configuration that failed; nullopt: not a configuration to write.
std::optional<std::string_view> failure_word(vocabulary::branch_outcome outcome) {
  using enum vocabulary::branch_outcome;
  switch (outcome) {
    case compile_error:
    case sass_rejected: return "CompilationFailedConfig";
    case runtime_error:
    case timeout: return "RuntimeFailedConfig";
    case incorrect:
    case inconsistent:
    case suspicious:
    case not_supported: return "InvalidConfig";
    case passed:
    case not_run:
    case interrupted: return std::nullopt;
  }
  return std::nullopt;
}

std::string iso_time(double unix_s) {
  const auto t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

struct configuration {
  const branch_entry* branch = nullptr;
  std::vector<tunable_value> values;
};

// The branch to write for each configuration key: a measured one before a failed one, the faster
// of two measured ones.
bool better(const branch_entry& candidate, const branch_entry& current) {
  if (candidate.best_time_s && current.best_time_s)
    return *candidate.best_time_s < *current.best_time_s;
  return candidate.best_time_s.has_value() && !current.best_time_s;
}

void write_value(json::writer& w, const tunable_value& v) {
  v.is_number ? w.raw(v.text) : w.value(v.text);
}

} // namespace

std::string kerneltuner_cache_file_name(std::string_view job_name) {
  return storage::path_component(job_name) + "-kerneltuner-cache.json";
}

expected<std::vector<std::string>, std::string> write_kerneltuner_caches(const campaign_report& report) {
  std::vector<std::string> written;
  for (const auto& job : report.jobs) {
    const auto name = kerneltuner_cache_file_name(job.row.name);
    if (auto done = files::write_file_atomically(report.run_dir / name, render_kerneltuner_cache(job)); !done)
      return unexpected{done.error()};
    written.push_back(name);
  }
  return written;
}

std::string render_kerneltuner_cache(const job_entry& job) {
  const auto keys = column_names_of(job).tunables;
  std::map<std::string, configuration> configurations; // by cache key
  std::map<std::string, std::vector<tunable_value>> seen; // tunable -> distinct values, in order
  std::string device_name;
  for (const auto& it : job.iterations)
    for (const auto& b : it.branches) {
      if (b.row.kind == vocabulary::branch_kind::ablation || !b.row.outcome)
        continue;
      const bool measured = *b.row.outcome == vocabulary::branch_outcome::passed && b.best_time_s;
      if (!measured && !failure_word(*b.row.outcome))
        continue;
      auto values = tunable_values(b.row.defines_json);
      if (values.empty())
        continue;
      std::string key;
      for (const auto& name : keys) {
        auto v = std::find_if(values.begin(), values.end(), [&](const auto& t) { return t.name == name; });
        key += (&name == &keys.front() ? "" : ",") + (v == values.end() ? std::string{} : v->text);
        if (v != values.end()) {
          auto& distinct = seen[name];
          if (std::none_of(distinct.begin(), distinct.end(), [&](const auto& d) { return d.text == v->text; }))
            distinct.push_back(*v);
        }
      }
      if (device_name.empty() && !b.measurements.empty())
        device_name = b.measurements.front().gpu_name;
      auto& slot = configurations[key];
      if (slot.branch == nullptr || better(b, *slot.branch))
        slot = {&b, std::move(values)};
    }

  json::writer w;
  w.begin_object();
  w.key("schema_version").value("1.0.0");
  w.key("device_name").value(device_name);
  w.key("kernel_name").value(job.row.name);
  w.key("problem_size").begin_array().end_array(); // the problem's dims live in its spec
  w.key("tune_params_keys").begin_array();
  for (const auto& name : keys)
    w.value(name);
  w.end_array();
  w.key("tune_params").begin_object();
  for (const auto& name : keys) {
    w.key(name).begin_array();
    for (const auto& v : seen[name])
      write_value(w, v);
    w.end_array();
  }
  w.end_object();
  w.key("objective").value("time");
  w.key("cache").begin_object();
  for (const auto& [key, config] : configurations) {
    const auto& b = *config.branch;
    w.key(key).begin_object();
    for (const auto& v : config.values) {
      w.key(v.name);
      write_value(w, v);
    }
    double benchmark_ms = 0;
    if (b.best_time_s) {
      w.key("time").value(*b.best_time_s * ms_per_s);
      w.key("times").begin_array();
      for (const auto& m : b.measurements) {
        w.value(m.median_s * ms_per_s);
        benchmark_ms += m.median_s * static_cast<double>(m.samples) * ms_per_s;
      }
      w.end_array();
    } else {
      w.key("time").value(*failure_word(*b.row.outcome));
    }
    w.key("compile_time").value(0.0);
    w.key("verification_time").value(0.0);
    w.key("benchmark_time").value(benchmark_ms);
    w.key("strategy_time").value(0.0);
    w.key("framework_time").value(0.0);
    w.key("timestamp").value(iso_time(b.row.created_at));
    w.end_object();
  }
  w.end_object();
  w.end_object();
  return std::move(w).str();
}

} // namespace warpforge::report
