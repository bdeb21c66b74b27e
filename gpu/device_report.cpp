#include "gpu/device_report.hpp"

#include "foundation/json/writer.hpp"
#include "foundation/vocabulary/enum_text.hpp"
#include "gpu/json_fields.hpp"

#include <sstream>
#include <utility>

namespace warpforge::gpu {

constexpr vocabulary::enum_word<gpu_status> gpu_status_words[] = {
    {gpu_status::ok, "ok"},
    {gpu_status::no_driver, "no_driver"},
    {gpu_status::no_device, "no_device"},
    {gpu_status::error, "error"},
};
static_assert(vocabulary::covers(gpu_status_words, all_gpu_statuses));

std::string_view to_string(gpu_status status) { return vocabulary::word_of(gpu_status_words, status); }

std::optional<gpu_status> gpu_status_from_string(std::string_view text) {
  return vocabulary::value_of(gpu_status_words, text);
}

constexpr vocabulary::enum_word<counter_access> counter_access_words[] = {
    {counter_access::readable, "readable"},
    {counter_access::restricted_admin_only, "restricted_admin_only"},
    {counter_access::unsupported, "unsupported"},
    {counter_access::unknown, "unknown"},
};
static_assert(vocabulary::covers(counter_access_words, all_counter_accesses));

std::string_view to_string(counter_access access) { return vocabulary::word_of(counter_access_words, access); }

std::optional<counter_access> counter_access_from_string(std::string_view text) {
  return vocabulary::value_of(counter_access_words, text);
}

std::string device_info::arch() const {
  return "sm_" + std::to_string(sm_major) + std::to_string(sm_minor);
}

std::string cuda_version_text(int version) {
  if (version <= 0)
    return "none";
  constexpr int major_factor = 1000; // CUDA encodes 13.0 as 13000
  constexpr int minor_factor = 10;
  return std::to_string(version / major_factor) + "." +
         std::to_string((version % major_factor) / minor_factor);
}

namespace {

void write_device(json::writer& out, const device_info& d) {
  out.begin_object();
  out.key("ordinal").value(d.ordinal);
  out.key("name").value(d.name);
  out.key("uuid").value(d.uuid);
  out.key("pci_bus_id").value(d.pci_bus_id);
  out.key("sm_major").value(d.sm_major);
  out.key("sm_minor").value(d.sm_minor);
  out.key("arch").value(d.arch());
  out.key("memory_bytes").value(d.memory_bytes);
  out.key("sm_count").value(d.sm_count);
  out.key("l2_bytes").value(d.l2_bytes);
  out.key("shared_memory_per_block_optin_bytes").value(d.shared_memory_per_block_optin_bytes);
  out.key("registers_per_sm").value(d.registers_per_sm);
  out.key("max_threads_per_sm").value(d.max_threads_per_sm);
  out.key("sm_clock_khz").value(d.sm_clock_khz);
  out.key("memory_clock_khz").value(d.memory_clock_khz);
  out.key("memory_bus_width_bits").value(d.memory_bus_width_bits);
  out.key("ecc_enabled").value(d.ecc_enabled);
  out.key("counter_access").value(to_string(d.counters));
  out.key("counter_reason").value(d.counter_reason);
  out.key("notes").begin_array();
  for (const auto& note : d.notes)
    out.value(note);
  out.end_array();
  out.end_object();
}

expected<device_info, json_error> read_device(simdjson::dom::element element,
                                              std::string context) {
  simdjson::dom::object object;
  if (element.get(object) != simdjson::SUCCESS)
    return unexpected(json_error{context + ": not an object"});
  json_object_reader in{object, std::move(context)};
  device_info d;
  in.required("ordinal", d.ordinal);
  in.required("name", d.name);
  in.required("uuid", d.uuid);
  in.required("pci_bus_id", d.pci_bus_id);
  in.required("sm_major", d.sm_major);
  in.required("sm_minor", d.sm_minor);
  in.required("memory_bytes", d.memory_bytes);
  in.required("sm_count", d.sm_count);
  in.required("l2_bytes", d.l2_bytes);
  in.required("shared_memory_per_block_optin_bytes", d.shared_memory_per_block_optin_bytes);
  in.required("registers_per_sm", d.registers_per_sm);
  in.required("max_threads_per_sm", d.max_threads_per_sm);
  in.required("sm_clock_khz", d.sm_clock_khz);
  in.required("memory_clock_khz", d.memory_clock_khz);
  in.required("memory_bus_width_bits", d.memory_bus_width_bits);
  in.required("ecc_enabled", d.ecc_enabled);
  in.required("counter_access", d.counters, &counter_access_from_string);
  in.required("counter_reason", d.counter_reason);
  in.required("notes", d.notes);
  if (!in.ok())
    return unexpected(in.error());
  return d;
}

} // namespace

void write_json(json::writer& out, const host_report& r) {
  out.begin_object();
  out.key("status").value(to_string(r.status));
  out.key("reason").value(r.reason);
  out.key("driver_version").value(r.driver_version);
  out.key("runtime_version").value(r.runtime_version);
  out.key("cupti_version").value(r.cupti_version);
  out.key("device_count").value(r.device_count);
  out.key("visible_devices");
  if (r.visible_devices)
    out.value(*r.visible_devices);
  else
    out.null();
  out.key("profiling_admin_only_known").value(r.profiling_admin_only_known);
  out.key("profiling_admin_only").value(r.profiling_admin_only);
  out.key("effective_uid").value(r.effective_uid);
  out.key("devices").begin_array();
  for (const auto& d : r.devices)
    write_device(out, d);
  out.end_array();
  out.end_object();
}

std::string to_json(const host_report& report) {
  json::writer out;
  write_json(out, report);
  return std::move(out).str();
}

expected<host_report, json_error> host_report_from_json(std::string_view text) {
  simdjson::dom::parser parser;
  auto object = parse_object(parser, text, "host_report");
  if (!object)
    return unexpected(object.error());
  json_object_reader in{*object, "host_report"};
  host_report r;
  in.required("status", r.status, &gpu_status_from_string);
  in.required("reason", r.reason);
  in.required("driver_version", r.driver_version);
  in.required("runtime_version", r.runtime_version);
  std::uint64_t cupti_version = 0;
  in.required("cupti_version", cupti_version);
  r.cupti_version = static_cast<std::uint32_t>(cupti_version);
  in.required("device_count", r.device_count);
  in.optional("visible_devices", r.visible_devices);
  in.required("profiling_admin_only_known", r.profiling_admin_only_known);
  in.required("profiling_admin_only", r.profiling_admin_only);
  std::uint64_t uid = 0;
  in.required("effective_uid", uid);
  r.effective_uid = static_cast<std::uint32_t>(uid);
  simdjson::dom::array devices;
  in.required("devices", devices);
  if (!in.ok())
    return unexpected(in.error());
  std::size_t index = 0;
  for (auto element : devices) {
    auto device = read_device(element, in.context_of("devices") + "[" +
                                           std::to_string(index++) + "]");
    if (!device)
      return unexpected(device.error());
    r.devices.push_back(std::move(*device));
  }
  return r;
}

namespace {

std::string mib(std::uint64_t bytes) {
  constexpr std::uint64_t bytes_per_mib = 1024 * 1024;
  return std::to_string(bytes / bytes_per_mib) + " MiB";
}

std::string khz_as_mhz(std::uint64_t khz) {
  constexpr std::uint64_t khz_per_mhz = 1000;
  return khz == 0 ? std::string{"unknown"} : std::to_string(khz / khz_per_mhz) + " MHz";
}

} // namespace

std::string to_text(const host_report& r) {
  std::ostringstream out;
  out << "gpu status:      " << to_string(r.status) << "\n";
  if (!r.reason.empty())
    out << "reason:          " << r.reason << "\n";
  out << "driver:          CUDA " << cuda_version_text(r.driver_version) << "\n";
  out << "runtime:         CUDA " << cuda_version_text(r.runtime_version) << "\n";
  out << "cupti:           " << r.cupti_version << "\n";
  out << "visible devices: " << (r.visible_devices ? *r.visible_devices : "(unset: all)") << "\n";
  out << "profiling:       RmProfilingAdminOnly="
      << (r.profiling_admin_only_known ? (r.profiling_admin_only ? "1" : "0") : "unknown")
      << ", euid=" << r.effective_uid << "\n";
  out << "devices:         " << r.device_count << "\n";
  for (const auto& d : r.devices) {
    out << "\n[" << d.ordinal << "] " << d.name << " (" << d.arch() << ")\n";
    out << "  uuid:                 " << d.uuid << "\n";
    out << "  pci bus id:           " << d.pci_bus_id << "\n";
    out << "  memory:               " << mib(d.memory_bytes) << ", " << d.memory_bus_width_bits
        << "-bit bus, ECC " << (d.ecc_enabled ? "on" : "off") << "\n";
    out << "  SMs:                  " << d.sm_count << "\n";
    out << "  L2:                   " << mib(d.l2_bytes) << " (" << d.l2_bytes << " B)\n";
    out << "  shared/block (optin): " << d.shared_memory_per_block_optin_bytes << " B\n";
    out << "  registers/SM:         " << d.registers_per_sm << "\n";
    out << "  max threads/SM:       " << d.max_threads_per_sm << "\n";
    out << "  SM clock:             " << khz_as_mhz(d.sm_clock_khz) << "\n";
    out << "  memory clock:         " << khz_as_mhz(d.memory_clock_khz) << "\n";
    out << "  counters:             " << to_string(d.counters) << " (" << d.counter_reason
        << ")\n";
    for (const auto& note : d.notes)
      out << "  note:                 " << note << "\n";
  }
  return out.str();
}

std::string short_no_gpu_reason(std::string_view why_none) {
  if (why_none.empty())
    return "no GPU visible";
  std::string text{why_none.substr(0, why_none.find("; "))};
  if (const auto open = text.rfind(" ["); open != std::string::npos && text.ends_with("]"))
    text.erase(open);
  return text;
}

} // namespace warpforge::gpu
