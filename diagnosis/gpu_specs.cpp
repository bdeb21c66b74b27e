#include "diagnosis/gpu_specs.hpp"

#include "config/toml_reader/table_file.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

namespace warpforge::embedded {
extern const std::string_view diagnosis_gpu_specs_toml; // diagnosis/data/gpu_specs.toml
}

namespace warpforge::diagnosis {

using toml_reader::index_key;
using toml_reader::presence;

namespace {

constexpr double tera = 1e12;           // TFLOP/s -> FLOP/s
constexpr double giga = 1e9;            // GB/s -> bytes/s
constexpr double mebi = 1024.0 * 1024;  // MiB -> bytes
// Table and theoretical DRAM bandwidth further apart than this (relative) earn a note.
constexpr double bandwidth_disagreement = 0.10;

// The TOML field of each precision's peak, in TFLOP/s.
constexpr std::string_view peak_fields[] = {
  "fp64_tflops",        "fp64_tensor_tflops", "fp32_tflops",        "fp16_tflops",
  "tf32_tensor_tflops", "fp16_tensor_tflops", "bf16_tensor_tflops", "fp8_tensor_tflops"};
static_assert(std::size(peak_fields) == all_precisions.size());

// Lower case with surrounding blanks removed: how device names are compared.
std::string normalise(std::string_view name) {
  std::size_t begin = 0;
  std::size_t end = name.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(name[begin])))
    ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(name[end - 1])))
    --end;
  std::string out;
  for (std::size_t i = begin; i < end; ++i)
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  return out;
}

std::string number_text(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

} // namespace

constexpr vocabulary::enum_word<precision> precision_words[] = {
    {precision::fp64, "fp64"}, {precision::fp64_tensor, "fp64_tensor"}, {precision::fp32, "fp32"},
    {precision::fp16, "fp16"}, {precision::tf32_tensor, "tf32_tensor"},
    {precision::fp16_tensor, "fp16_tensor"}, {precision::bf16_tensor, "bf16_tensor"},
    {precision::fp8_tensor, "fp8_tensor"}};
static_assert(vocabulary::covers(precision_words, all_precisions));

std::string_view to_string(precision p) { return vocabulary::word_of(precision_words, p); }

std::optional<precision> precision_from_string(std::string_view text) {
  return vocabulary::value_of(precision_words, text);
}

constexpr vocabulary::enum_word<gpu_match> gpu_match_words[] = {{gpu_match::table, "table"},
                                                                  {gpu_match::unknown, "unknown"}};
static_assert(vocabulary::covers(gpu_match_words, all_gpu_matches));

std::string_view to_string(gpu_match match) { return vocabulary::word_of(gpu_match_words, match); }

std::optional<gpu_match> gpu_match_from_string(std::string_view text) {
  return vocabulary::value_of(gpu_match_words, text);
}

const gpu_spec* gpu_table::find(std::string_view device_name) const {
  const std::string wanted = normalise(device_name);
  if (wanted.empty())
    return nullptr;
  for (const auto& entry : entries_)
    for (const auto& name : entry.device_names)
      if (normalise(name) == wanted)
        return &entry;
  return nullptr;
}

expected<gpu_table, toml_reader::placed_errors> parse_gpu_table(std::string_view text,
                                                                const std::string& file) {
  constexpr std::string_view root_keys[] = {"gpu"};
  gpu_table table;
  auto read = toml_reader::read_document(
    text, file, root_keys, [&](const toml::table& root, toml_reader::reader& fields) {
    std::map<std::string, std::uint32_t, std::less<>> key_lines;  // key -> line
    std::map<std::string, std::string, std::less<>> name_owners;  // normalised device name -> key
    const auto entries = fields.tables(root, "", "gpu", presence::required);
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const toml::table& entry = *entries[i];
      const std::string path = index_key("gpu", i);
      std::vector<std::string_view> known{"key",       "label",  "names",  "arch", "sm_count",
                                          "dram_gbps", "l2_mib", "source", "note"};
      known.insert(known.end(), std::begin(peak_fields), std::end(peak_fields));
      fields.check_keys(entry, path, known);

      gpu_spec spec;
      spec.line = entry.source().begin.line;
      auto key = fields.string(entry, path, "key", presence::required);
      auto label = fields.string(entry, path, "label", presence::required);
      auto names = fields.strings(entry, path, "names", presence::required);
      auto arch = fields.string(entry, path, "arch", presence::required);
      auto sm_count = fields.integer(entry, path, "sm_count", presence::required);
      auto dram = fields.number(entry, path, "dram_gbps", presence::required);
      auto l2 = fields.number(entry, path, "l2_mib", presence::optional);
      auto source = fields.string(entry, path, "source", presence::required);
      (void)fields.string(entry, path, "note", presence::optional);
      bool ok = key && label && names && arch && sm_count && dram && source;
      const std::string named = key ? "gpu." + *key : path;

      if (key) {
        if (auto first = key_lines.find(*key); first != key_lines.end()) {
          fields.error(entry.get("key")->source(), named + ".key", "duplicate GPU key '" + *key + "'",
                       "first defined on line " + std::to_string(first->second));
          ok = false;
        } else {
          key_lines.emplace(*key, spec.line);
        }
      }
      if (names) {
        if (names->empty()) {
          fields.error(entry.get("names")->source(), named + ".names",
                       "no device names; list the names the CUDA runtime reports");
          ok = false;
        }
        for (const auto& name : *names) {
          const std::string normal = normalise(name.value);
          if (auto owner = name_owners.find(normal); owner != name_owners.end()) {
            fields.error(name.at, named + ".names",
                         "device name '" + name.value + "' already belongs to '" + owner->second +
                           "'",
                         "one device name identifies one GPU");
            ok = false;
          } else if (key) {
            name_owners.emplace(normal, *key);
          }
        }
      }
      auto positive = [&](const std::optional<double>& value, std::string_view field) {
        if (value && !(*value > 0.0)) {
          fields.error(entry.get(field)->source(), named + "." + std::string{field},
                       "must be positive (leave the field out when the GPU has no such unit)");
          ok = false;
        }
      };
      if (sm_count && *sm_count <= 0) {
        fields.error(entry.get("sm_count")->source(), named + ".sm_count", "must be positive");
        ok = false;
      }
      positive(dram, "dram_gbps");
      positive(l2, "l2_mib");
      for (std::size_t p = 0; p < all_precisions.size(); ++p) {
        const bool needed = all_precisions[p] == precision::fp32;
        auto value = fields.number(entry, path, peak_fields[p],
                                   needed ? presence::required : presence::optional);
        if (needed && !value)
          ok = false;
        positive(value, peak_fields[p]);
        if (value)
          spec.peak_flops[p] = *value * tera;
      }
      if (!ok)
        continue;
      spec.key = std::move(*key);
      spec.label = std::move(*label);
      for (auto& name : *names)
        spec.device_names.push_back(std::move(name.value));
      spec.arch = std::move(*arch);
      spec.sm_count = static_cast<int>(*sm_count);
      spec.dram_bandwidth = *dram * giga;
      if (l2)
        spec.l2_bytes = *l2 * mebi;
      spec.source = std::move(*source);
      table.entries_.push_back(std::move(spec));
    }
  });
  if (!read)
    return unexpected(std::move(read).error());
  return table;
}

expected<gpu_table, toml_reader::placed_errors> load_gpu_table(const std::filesystem::path& path) {
  return toml_reader::load_table(path, "the GPU table", parse_gpu_table);
}

const gpu_table& builtin_gpu_table() {
  static const gpu_table table =
    toml_reader::builtin_table(parse_gpu_table(embedded::diagnosis_gpu_specs_toml, "<builtin>/gpu_specs.toml"),
                               "GPU table");
  return table;
}

std::optional<double> theoretical_dram_bandwidth(const device_properties& device) {
  if (device.memory_clock_khz == 0 || device.memory_bus_width_bits <= 0)
    return std::nullopt;
  // DDR: two transfers per clock; the bus moves bus_width/8 bytes per transfer.
  return 2.0 * static_cast<double>(device.memory_clock_khz) * 1e3 *
         static_cast<double>(device.memory_bus_width_bits) / 8.0;
}

std::optional<double> gpu_profile::peak_dram_bandwidth() const {
  if (dram_bandwidth_table)
    return dram_bandwidth_table;
  return dram_bandwidth_theoretical;
}

std::optional<double> gpu_profile::peak_flops(precision p) const {
  if (!spec)
    return std::nullopt;
  return spec->peak(p);
}

int gpu_profile::sm_count() const {
  if (device.sm_count > 0)
    return device.sm_count;
  return spec ? spec->sm_count : 0;
}

gpu_profile describe_gpu(const gpu_table& table, const device_properties& device) {
  gpu_profile out;
  out.name = device.name;
  out.device = device;
  out.dram_bandwidth_theoretical = theoretical_dram_bandwidth(device);
  if (const gpu_spec* spec = table.find(device.name)) {
    out.match = gpu_match::table;
    out.spec = *spec;
    out.dram_bandwidth_table = spec->dram_bandwidth;
    if (device.sm_count > 0 && device.sm_count != spec->sm_count)
      out.notes.push_back("the device reports " + std::to_string(device.sm_count) +
                          " SMs, the table " + std::to_string(spec->sm_count) +
                          " (a MIG slice or another SKU): peak FLOP/s are the table's full-GPU "
                          "figures");
    if (out.dram_bandwidth_theoretical &&
        std::fabs(*out.dram_bandwidth_theoretical - spec->dram_bandwidth) >
          bandwidth_disagreement * spec->dram_bandwidth)
      out.notes.push_back(
          "theoretical DRAM bandwidth from the device's clock and bus (" +
          number_text("%.0f", *out.dram_bandwidth_theoretical / giga) +
          " GB/s) differs from the table's (" + number_text("%.0f", spec->dram_bandwidth / giga) +
          " GB/s) by more than " + number_text("%.0f", bandwidth_disagreement * 100.0) + "%");
  } else {
    out.match = gpu_match::unknown;
    out.notes.push_back("'" + device.name +
                        "' is not in the GPU table: no peak FLOP/s, so no compute peak fraction" +
                        (out.dram_bandwidth_theoretical
                           ? std::string{"; DRAM peak is the theoretical figure from the device"}
                           : std::string{"; no DRAM peak either"}) +
                        " (add the GPU to diagnosis/data/gpu_specs.toml)");
  }
  return out;
}

std::string to_text(const gpu_profile& gpu) {
  std::string out = "GPU: " + gpu.name + " (" + std::string{to_string(gpu.match)};
  if (gpu.spec)
    out += ": " + gpu.spec->label + ", " + gpu.spec->arch;
  out += ")\n";
  out += "  SMs: " + std::to_string(gpu.sm_count()) + "\n";
  if (gpu.spec) {
    for (auto p : all_precisions)
      if (auto peak = gpu.spec->peak(p))
        out += "  peak " + std::string{to_string(p)} + ": " + number_text("%.1f", *peak / tera) +
               " TFLOP/s\n";
  }
  out += "  DRAM bandwidth: table ";
  out += gpu.dram_bandwidth_table ? number_text("%.0f", *gpu.dram_bandwidth_table / giga) + " GB/s"
                                  : std::string{"n/a"};
  out += ", theoretical (2 x memory clock x bus width / 8) ";
  out += gpu.dram_bandwidth_theoretical
           ? number_text("%.0f", *gpu.dram_bandwidth_theoretical / giga) + " GB/s"
           : std::string{"n/a (the device did not report its memory clock and bus width)"};
  out += "\n";
  if (gpu.spec)
    out += "  source: " + gpu.spec->source + "\n";
  for (const auto& note : gpu.notes)
    out += "  note: " + note + "\n";
  return out;
}

} // namespace warpforge::diagnosis
