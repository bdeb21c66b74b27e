// Reading data/simulator_keys.toml into a simulator_mapping (simulator.hpp).
#include "calibrate/results/simulator.hpp"

#include "config/toml_reader/reader.hpp"
#include "foundation/vocabulary/enum_text.hpp"

namespace warpforge::embedded {
extern const std::string_view calibrate_simulator_keys_toml; // calibrate/results/data/simulator_keys.toml
}

namespace warpforge::calibrate {

using toml_reader::index_key;
using toml_reader::presence;

namespace {

const std::vector<toml_reader::placed_string> no_strings;

constexpr simulator all_simulators[] = {simulator::accel_sim, simulator::gpgpu_sim};
constexpr part_formula all_formulas[] = {
  part_formula::value,   part_formula::difference,  part_formula::product,
  part_formula::initiation_interval, part_formula::literal, part_formula::placeholder,
};

// How many parameter names each formula reads: {at least, at most}.
std::pair<std::size_t, std::size_t> inputs_of(part_formula f) {
  switch (f) {
    case part_formula::value: return {1, 1};
    case part_formula::difference: return {2, 2};
    case part_formula::product: return {2, 8};
    case part_formula::initiation_interval: return {1, 1};
    case part_formula::literal:
    case part_formula::placeholder: return {0, 0};
  }
  return {0, 0};
}

std::optional<key_part> read_part(toml_reader::reader& fields, const toml::table& entry,
                                  const std::string& path) {
  constexpr std::string_view known[] = {"formula", "from", "scale", "work", "integer", "text", "source"};
  fields.check_keys(entry, path, known);
  auto formula = fields.enumeration(entry, path, "formula", presence::required, all_formulas,
                                    part_formula_from_string);
  if (!formula)
    return std::nullopt;
  key_part part;
  part.formula = *formula;
  for (auto& name : fields.strings(entry, path, "from", presence::optional).value_or(no_strings))
    part.from.push_back(std::move(name.value));
  part.scale = fields.number(entry, path, "scale", presence::optional).value_or(1.0);
  part.integer = fields.boolean(entry, path, "integer", presence::optional).value_or(true);
  part.text = fields.string(entry, path, "text", presence::optional).value_or("");
  part.source = fields.string(entry, path, "source", presence::optional).value_or("");
  const auto [least, most] = inputs_of(*formula);
  if (part.from.size() < least || part.from.size() > most)
    fields.error(entry.source(), path + ".from",
                 std::string{to_string(*formula)} + " reads " + std::to_string(least) +
                     (least == most ? "" : " to " + std::to_string(most)) + " parameter name(s)");
  if (*formula == part_formula::initiation_interval) {
    auto work = fields.number(entry, path, "work", presence::required);
    part.work = work.value_or(0);
    if (work && *work <= 0)
      fields.error(entry.source(), path + ".work", "must be positive",
                   "the SM's units x ops (or FLOP) per warp instruction");
  }
  if ((*formula == part_formula::literal || *formula == part_formula::placeholder) && part.text.empty())
    fields.error(entry.source(), path + ".text", "a " + std::string{to_string(*formula)} + " needs its text");
  if (*formula == part_formula::literal && part.source.empty())
    fields.error(entry.source(), path + ".source", "a literal needs its source",
                 "say where the value comes from");
  return part;
}

std::optional<simulator_key> read_key(toml_reader::reader& fields, const toml::table& entry,
                                      const std::string& path) {
  constexpr std::string_view known[] = {"simulators", "file", "key", "separator", "note", "parts"};
  fields.check_keys(entry, path, known);
  simulator_key out;
  for (const auto& name : fields.strings(entry, path, "simulators", presence::required).value_or(no_strings)) {
    if (auto s = simulator_from_string(name.value))
      out.simulators.push_back(*s);
    else
      fields.error(name.at, path + ".simulators", "unknown simulator '" + name.value + "'",
                   "accel_sim or gpgpu_sim");
  }
  out.file = fields.string(entry, path, "file", presence::required).value_or("");
  out.key = fields.string(entry, path, "key", presence::required).value_or("");
  out.separator = fields.string(entry, path, "separator", presence::optional).value_or(",");
  out.note = fields.string(entry, path, "note", presence::optional).value_or("");
  const auto parts = fields.tables(entry, path, "parts", presence::required);
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (auto part = read_part(fields, *parts[i], index_key(path + ".parts", i)))
      out.parts.push_back(std::move(*part));
  if (!out.key.starts_with("-"))
    fields.error(entry.source(), path + ".key", "a config key starts with '-'");
  return out;
}

} // namespace

constexpr vocabulary::enum_word<simulator> simulator_words[] = {
    {simulator::accel_sim, "accel_sim"},
    {simulator::gpgpu_sim, "gpgpu_sim"},
};
static_assert(vocabulary::covers(simulator_words, all_simulators));

std::string_view to_string(simulator s) { return vocabulary::word_of(simulator_words, s); }

std::optional<simulator> simulator_from_string(std::string_view text) {
  return vocabulary::value_of(simulator_words, text);
}

constexpr vocabulary::enum_word<part_formula> part_formula_words[] = {
    {part_formula::value, "value"},
    {part_formula::difference, "difference"},
    {part_formula::product, "product"},
    {part_formula::initiation_interval, "initiation_interval"},
    {part_formula::literal, "literal"},
    {part_formula::placeholder, "placeholder"},
};
static_assert(vocabulary::covers(part_formula_words, all_formulas));

std::string_view to_string(part_formula f) { return vocabulary::word_of(part_formula_words, f); }

std::optional<part_formula> part_formula_from_string(std::string_view text) {
  return vocabulary::value_of(part_formula_words, text);
}

expected<simulator_mapping, std::string> built_in_simulator_mapping() {
  return parse_simulator_mapping(embedded::calibrate_simulator_keys_toml,
                                 "<builtin>/calibrate/results/data/simulator_keys.toml");
}

expected<simulator_mapping, std::string> parse_simulator_mapping(std::string_view toml_text,
                                                                 const std::string& file) {
  auto document = toml_reader::parse(toml_text, file);
  if (!document)
    return unexpected(toml_reader::to_string(document.error()));
  toml_reader::placed_errors errors;
  toml_reader::reader fields{file, errors};
  constexpr std::string_view root_keys[] = {"key"};
  fields.set_root_keys(root_keys);
  fields.check_keys(*document, "", root_keys);
  simulator_mapping out;
  const auto entries = fields.tables(*document, "", "key", presence::required);
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (auto key = read_key(fields, *entries[i], index_key("key", i)))
      out.keys.push_back(std::move(*key));
  if (!errors.empty()) {
    toml_reader::sort_by_place(errors);
    return unexpected(toml_reader::to_string(errors));
  }
  return out;
}

} // namespace warpforge::calibrate
