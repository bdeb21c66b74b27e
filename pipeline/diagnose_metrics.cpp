#include "pipeline/diagnose_metrics.hpp"

#include "gpu/runner/profile_request.hpp"
#include "foundation/json/writer.hpp"

#include <simdjson.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace warpforge::pipeline {

diagnosis::device_properties properties_of(const gpu::device_info& device) {
  diagnosis::device_properties p;
  p.name = device.name;
  p.sm_count = device.sm_count;
  p.sm_clock_khz = device.sm_clock_khz;
  p.memory_clock_khz = device.memory_clock_khz;
  p.memory_bus_width_bits = device.memory_bus_width_bits;
  p.l2_bytes = device.l2_bytes;
  return p;
}

std::optional<diagnosis::diagnosis> diagnose_metrics(const gpu::metric_set& metrics, const gpu::device_info& device) {
  if (metrics.values.empty())
    return std::nullopt;
  diagnosis::metric_values measured;
  for (const auto& v : metrics.values)
    measured[v.key] = v.value;
  return diagnosis::diagnose(measured, diagnosis::describe_gpu(diagnosis::builtin_gpu_table(), properties_of(device)));
}

diagnosis_summary summarize_metrics(const gpu::metric_set& metrics, const gpu::device_info& device, const branch_ref& of) {
  auto d = diagnose_metrics(metrics, device);
  if (!d) {
    diagnosis_summary none;
    none.of = of;
    none.gpu = device.ordinal;
    none.note = metrics.note.empty() ? "no counters were read" : metrics.note;
    none.service = metrics.service;
    none.why_out_of_service = metrics.why_out_of_service;
    return none;
  }
  auto s = summarize(*d, of, device.ordinal, device.sm_major * 10 + device.sm_minor);
  s.note = metrics.note;
  return s;
}

namespace {

// The GPU a metric file names, with what its profile showed of counter access: a campaign's
// discovery does not probe it (device_query_depth::properties), and a counter the profile read
// (anything beyond the CUBIN's launch__ attributes) is the evidence that they are readable.
gpu::device_info profiled_device(const metric_file& file) {
  auto device = file.device;
  const bool read_a_counter = std::any_of(file.metrics.values.begin(), file.metrics.values.end(),
                                          [](const gpu::metric_value& v) { return !v.key.starts_with("launch__"); });
  if (device.counters == gpu::counter_access::unknown && file.metrics.source && read_a_counter) {
    device.counters = gpu::counter_access::readable;
    device.counter_reason = "read by this profile (" + std::string{gpu::to_string(*file.metrics.source)} + ")";
  }
  return device;
}

} // namespace

expected<void, std::string> write_metric_file(const std::filesystem::path& path, const metric_file& file) {
  json::writer out;
  out.begin_object();
  out.key("source").value(file.metrics.source ? std::string{gpu::to_string(*file.metrics.source)} : std::string{"none"});
  out.key("note").value(file.metrics.note);
  out.key("values").begin_object();
  for (const auto& v : file.metrics.values)
    out.key(v.key).value(v.value);
  out.end_object();
  out.key("device").raw(gpu::to_json(gpu::host_report{gpu::gpu_status::ok, "", 0, 0, 0, 1, std::nullopt, false, false, 0, {profiled_device(file)}}));
  out.end_object();
  std::error_code ignored;
  std::filesystem::create_directories(path.parent_path(), ignored);
  std::ofstream f{path};
  f << std::move(out).str() << '\n';
  if (!f)
    return unexpected{"cannot write " + path.string()};
  return {};
}

expected<metric_file, std::string> read_metric_file(const std::filesystem::path& path) {
  std::ifstream in{path};
  if (!in)
    return unexpected{"cannot read " + path.string()};
  std::stringstream text;
  text << in.rdbuf();
  simdjson::dom::parser parser;
  simdjson::dom::object root;
  if (parser.parse(text.str()).get(root) != simdjson::SUCCESS)
    return unexpected{path.string() + ": not a JSON object"};
  metric_file file;
  std::string_view source;
  if (root["source"].get(source) == simdjson::SUCCESS && source != "none")
    file.metrics.source = gpu::metric_source_from_string(source);
  std::string_view note;
  if (root["note"].get(note) == simdjson::SUCCESS)
    file.metrics.note = std::string{note};
  simdjson::dom::object values;
  if (root["values"].get(values) != simdjson::SUCCESS)
    return unexpected{path.string() + ": values: missing"};
  for (auto field : values) {
    double v = 0;
    if (field.value.get(v) != simdjson::SUCCESS)
      return unexpected{path.string() + ": values." + std::string{field.key} + ": not a number"};
    file.metrics.values.push_back({std::string{field.key}, v});
  }
  simdjson::dom::element device;
  if (root["device"].get(device) != simdjson::SUCCESS)
    return unexpected{path.string() + ": device: missing"};
  auto report = gpu::host_report_from_json(simdjson::to_string(device));
  if (!report || report->devices.empty())
    return unexpected{path.string() + ": device: " + (report ? std::string{"no device"} : report.error().detail)};
  file.device = report->devices.front();
  return file;
}

} // namespace warpforge::pipeline
