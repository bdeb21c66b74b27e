#include "calibrate/catalog.hpp"

#include "config/toml_reader/reader.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <array>

namespace warpforge::embedded {
extern const std::string_view calibrate_catalog_toml;
}

namespace warpforge::calibrate {
namespace {

using toml_reader::presence;

constexpr std::array<std::string_view, 1> root_keys{"parameter"};
constexpr std::array<std::string_view, 16> parameter_keys{
    "name",        "category", "unit",          "priority",           "technique", "depends_on",
    "description", "range",    "expected_sass", "validation_metrics", "known",     "method",
    "rederive",    "literature", "literature_not_found", "size_from"};
constexpr std::array<std::string_view, 3> known_keys{"arch", "value", "source"};
constexpr std::array<std::string_view, 6> literature_keys{"figure", "arch",   "gpu",
                                                          "value",  "method", "source"};
constexpr std::array<std::string_view, 3> rederive_keys{"count", "over", "scale"};

std::vector<std::string> plain(std::optional<std::vector<toml_reader::placed_string>> strings) {
  std::vector<std::string> out;
  if (strings)
    for (auto& entry : *strings)
      out.push_back(std::move(entry.value));
  return out;
}

// range = [low, high]: two numbers, in the parameter's unit.
void read_range(toml_reader::reader& reader, const toml::table& entry, const std::string& path,
                parameter& into) {
  const auto* range = reader.array(entry, path, "range", presence::required);
  if (range == nullptr)
    return;
  const std::string key = path + ".range";
  if (range->size() != 2 || !(*range)[0].is_number() || !(*range)[1].is_number()) {
    reader.wrong_type(*range, key, "[low, high]: two numbers in the parameter's unit");
    return;
  }
  into.range_min = (*range)[0].value<double>().value_or(0);
  into.range_max = (*range)[1].value<double>().value_or(0);
}

std::vector<known_value> read_known(toml_reader::reader& reader, const toml::table& entry,
                                    const std::string& path) {
  std::vector<known_value> out;
  const auto* list = reader.array(entry, path, "known", presence::optional);
  if (list == nullptr)
    return out;
  for (std::size_t index = 0; index < list->size(); ++index) {
    const std::string key = toml_reader::index_key(path + ".known", index);
    const auto* table = (*list)[index].as_table();
    if (table == nullptr) {
      reader.wrong_type((*list)[index], key, "a table { arch, value, source }");
      continue;
    }
    reader.check_keys(*table, key, known_keys);
    known_value known;
    known.arch = reader.string(*table, key, "arch", presence::required).value_or("");
    known.value = reader.number(*table, key, "value", presence::required).value_or(0);
    known.source = reader.string(*table, key, "source", presence::required).value_or("");
    out.push_back(std::move(known));
  }
  return out;
}

// literature = [ { figure, arch, gpu, value, method, source }, ... ]: studies' figures.
std::vector<published_value> read_literature(toml_reader::reader& reader, const toml::table& entry,
                                             const std::string& path) {
  std::vector<published_value> out;
  const auto* list = reader.array(entry, path, "literature", presence::optional);
  if (list == nullptr)
    return out;
  for (std::size_t index = 0; index < list->size(); ++index) {
    const std::string key = toml_reader::index_key(path + ".literature", index);
    const auto* table = (*list)[index].as_table();
    if (table == nullptr) {
      reader.wrong_type((*list)[index], key, "a table { figure, arch, gpu, value, method, source }");
      continue;
    }
    reader.check_keys(*table, key, literature_keys);
    published_value figure;
    figure.figure = reader.string(*table, key, "figure", presence::required).value_or("");
    figure.arch = reader.string(*table, key, "arch", presence::required).value_or("");
    figure.gpu = reader.string(*table, key, "gpu", presence::required).value_or("");
    figure.value = reader.number(*table, key, "value", presence::required).value_or(0);
    figure.method = reader.string(*table, key, "method", presence::required).value_or("");
    figure.source = reader.string(*table, key, "source", presence::required).value_or("");
    out.push_back(std::move(figure));
  }
  return out;
}

// rederive = { count = "...", over = "...", scale = 1.0 }: the value from the launch's counters.
std::optional<counter_formula> read_rederive(toml_reader::reader& reader, const toml::table& entry,
                                             const std::string& path) {
  const auto* table = reader.table(entry, path, "rederive", presence::optional);
  if (table == nullptr)
    return std::nullopt;
  const std::string key = path + ".rederive";
  reader.check_keys(*table, key, rederive_keys);
  counter_formula formula;
  formula.count = reader.string(*table, key, "count", presence::required).value_or("");
  formula.over = reader.string(*table, key, "over", presence::required).value_or("");
  formula.scale = reader.number(*table, key, "scale", presence::optional).value_or(1.0);
  return formula;
}

parameter read_parameter(toml_reader::reader& reader, const toml::table& entry,
                         const std::string& path) {
  reader.check_keys(entry, path, parameter_keys);
  parameter out;
  out.line = entry.source().begin.line;
  out.name = reader.string(entry, path, "name", presence::required).value_or("");
  if (auto group = reader.enumeration(entry, path, "category", presence::required, all_categories,
                                      &category_from_string))
    out.group = *group;
  out.unit = reader.string(entry, path, "unit", presence::required).value_or("");
  // Priority 0 or 9 is read as written: self_check names it, with the rest of the file's problems.
  if (auto priority = reader.integer(entry, path, "priority", presence::required))
    out.priority = static_cast<std::uint32_t>(std::clamp<std::int64_t>(*priority, 0, 1000));
  out.technique = reader.string(entry, path, "technique", presence::required).value_or("");
  out.depends_on = plain(reader.strings(entry, path, "depends_on", presence::optional));
  read_range(reader, entry, path, out);
  out.expected_sass = plain(reader.strings(entry, path, "expected_sass", presence::required));
  out.validation_metrics =
      plain(reader.strings(entry, path, "validation_metrics", presence::required));
  out.description = reader.string(entry, path, "description", presence::required).value_or("");
  out.known = read_known(reader, entry, path);
  out.method = reader.string(entry, path, "method", presence::optional).value_or("");
  out.rederive = read_rederive(reader, entry, path);
  out.literature = read_literature(reader, entry, path);
  out.literature_not_found =
      reader.string(entry, path, "literature_not_found", presence::optional).value_or("");
  if (auto rule = reader.enumeration(entry, path, "size_from", presence::optional, all_size_rules,
                                     &size_rule_from_string))
    out.size_from = *rule;
  return out;
}

} // namespace

constexpr vocabulary::enum_word<category> category_words[] = {
    {category::instruction_throughput, "instruction_throughput"},
    {category::instruction_latency, "instruction_latency"},
    {category::tensor_throughput, "tensor_throughput"},
    {category::tensor_latency, "tensor_latency"},
    {category::special_function, "special_function"},
    {category::shared_memory, "shared_memory"},
    {category::cache_hierarchy, "cache_hierarchy"},
    {category::memory_bandwidth, "memory_bandwidth"},
    {category::register_file, "register_file"},
    {category::warp_scheduling, "warp_scheduling"},
    {category::control_flow, "control_flow"},
};
static_assert(vocabulary::covers(category_words, all_categories));

constexpr vocabulary::enum_word<size_rule> size_rule_words[] = {
    {size_rule::onset, "onset"},
    {size_rule::miss_fit, "miss_fit"},
};
static_assert(vocabulary::covers(size_rule_words, all_size_rules));

std::string_view to_string(category group) { return vocabulary::word_of(category_words, group); }

std::optional<category> category_from_string(std::string_view text) {
  return vocabulary::value_of(category_words, text);
}

std::string_view to_string(size_rule rule) { return vocabulary::word_of(size_rule_words, rule); }

std::optional<size_rule> size_rule_from_string(std::string_view text) {
  return vocabulary::value_of(size_rule_words, text);
}

expected<catalog, std::string> catalog::built_in() {
  auto parsed = parse(embedded::calibrate_catalog_toml, std::string{built_in_catalog_file});
  if (!parsed)
    return unexpected{"the built-in calibrate catalog does not parse:\n" + parsed.error()};
  const auto problems = self_check(*parsed);
  if (problems.empty())
    return parsed;
  std::string message = "the built-in calibrate catalog fails its self-check:";
  for (const auto& problem : problems)
    message += "\n" + problem;
  return unexpected{std::move(message)};
}

expected<catalog, std::string> catalog::parse(std::string_view toml_text, std::string file) {
  auto document = toml_reader::parse(toml_text, file);
  if (!document)
    return unexpected{toml_reader::to_string(document.error())};
  toml_reader::placed_errors errors;
  toml_reader::reader reader{file, errors};
  reader.check_keys(*document, "", root_keys);
  catalog out;
  out.file_ = std::move(file);
  const auto entries = reader.tables(*document, "", "parameter", presence::required);
  for (std::size_t index = 0; index < entries.size(); ++index)
    out.parameters_.push_back(
        read_parameter(reader, *entries[index], toml_reader::index_key("parameter", index)));
  if (!errors.empty()) {
    toml_reader::sort_by_place(errors);
    return unexpected{toml_reader::to_string(errors)};
  }
  return out;
}

expected<catalog, std::string> catalog::load(const std::filesystem::path& path) {
  auto text = toml_reader::read_file(path, "the calibrate catalog");
  if (!text)
    return unexpected{toml_reader::to_string(text.error())};
  return parse(*text, path.string());
}

const parameter* catalog::find(std::string_view name) const {
  for (const auto& entry : parameters_)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

catalog catalog::from(std::vector<parameter> parameters, std::string file) {
  catalog out;
  out.file_ = std::move(file);
  out.parameters_ = std::move(parameters);
  return out;
}

std::optional<known_value> known_for(const parameter& what, std::string_view arch) {
  // "sm_90a" unlocks wgmma and friends on the same silicon as "sm_90": the same published values.
  if (arch.size() > 3 && arch.starts_with("sm_") && arch.back() == 'a')
    arch.remove_suffix(1);
  for (const auto& known : what.known)
    if (known.arch == arch)
      return known;
  return std::nullopt;
}

} // namespace warpforge::calibrate
