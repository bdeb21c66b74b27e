#include "diagnosis/metric_schema.hpp"

#include "config/toml_reader/table_file.hpp"

#include <algorithm>
#include <map>

namespace warpforge::embedded {
extern const std::string_view diagnosis_metric_schema_toml; // diagnosis/data/metric_schema.toml
}

namespace warpforge::diagnosis {

using toml_reader::index_key;
using toml_reader::join_key;
using toml_reader::presence;

namespace {

bool is_metric_key(std::string_view text) {
  if (text.empty() || !(text[0] >= 'a' && text[0] <= 'z'))
    return false;
  if (text == "and" || text == "or" || text == "not")
    return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::vector<std::string_view> unit_names() {
  std::vector<std::string_view> out;
  for (auto unit : all_metric_units)
    out.push_back(to_string(unit));
  return out;
}

// What the loader keeps per entry besides the definition: where each field was, for errors that
// are found only after all entries are read (unknown formula keys, cycles).
struct entry_places {
  const toml::node* formula = nullptr;
  std::string path; // "metric[3]"
};

} // namespace

const metric_definition* metric_schema::find(std::string_view key) const {
  for (const auto& m : metrics_)
    if (m.key == key)
      return &m;
  return nullptr;
}

const metric_definition* metric_schema::find_nsight(std::string_view nsight_name) const {
  if (nsight_name.empty())
    return nullptr;
  for (const auto& m : metrics_)
    if (m.nsight == nsight_name)
      return &m;
  return nullptr;
}

std::vector<std::string> metric_schema::nsight_names() const {
  std::vector<std::string> out;
  for (const auto& m : metrics_)
    if (!m.derived())
      out.push_back(m.nsight);
  return out;
}

completed_metrics metric_schema::complete(const metric_values& measured) const {
  completed_metrics out{measured, {}};
  std::vector<derived_gap> gaps;
  for (const std::size_t index : derived_order_) {
    const auto& m = metrics_[index];
    if (out.values.contains(m.key))
      continue;
    auto value = m.formula.evaluate(out.values);
    if (value)
      out.values.emplace(m.key, *value);
    else
      gaps.push_back({m.key, std::move(value).error()});
  }
  // Report in schema order, whatever the dependency order was.
  for (const auto& m : metrics_)
    for (auto& gap : gaps)
      if (gap.key == m.key)
        out.not_derived.push_back(std::move(gap));
  return out;
}

expected<metric_schema, toml_reader::placed_errors> parse_metric_schema(std::string_view text,
                                                                        const std::string& file) {
  constexpr std::string_view root_keys[] = {"sections", "metric"};
  metric_schema schema;
  auto read = toml_reader::read_document(
    text, file, root_keys, [&](const toml::table& root, toml_reader::reader& fields) {
    if (auto sections = fields.strings(root, "", "sections", presence::required)) {
      for (std::size_t i = 0; i < sections->size(); ++i) {
        const auto& name = (*sections)[i];
        if (std::find(schema.sections_.begin(), schema.sections_.end(), name.value) !=
            schema.sections_.end())
          fields.error(name.at, index_key("sections", i), "duplicate section '" + name.value + "'");
        else
          schema.sections_.push_back(name.value);
      }
      if (schema.sections_.empty())
        fields.error(root.get("sections")->source(), "sections", "no sections; list at least one");
    }
    std::vector<std::string_view> section_views(schema.sections_.begin(), schema.sections_.end());
    const std::vector<std::string_view> units = unit_names();

    std::vector<entry_places> places;
    std::map<std::string, std::uint32_t, std::less<>> key_lines;    // key -> line first defined
    std::map<std::string, std::string, std::less<>> nsight_owners;  // Nsight name -> key
    const auto entries = fields.tables(root, "", "metric", presence::required);
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const toml::table& entry = *entries[i];
      const std::string path = index_key("metric", i);
      constexpr std::string_view known[] = {"key",    "label",   "unit", "section",
                                            "nsight", "formula", "note"};
      fields.check_keys(entry, path, known);

      metric_definition m;
      m.line = entry.source().begin.line;
      bool ok = true;
      auto key = fields.string(entry, path, "key", presence::required);
      auto label = fields.string(entry, path, "label", presence::required);
      auto unit = fields.string(entry, path, "unit", presence::required);
      auto section = fields.string(entry, path, "section", presence::required);
      auto nsight = fields.string(entry, path, "nsight", presence::optional);
      auto formula = fields.string(entry, path, "formula", presence::optional);
      auto note = fields.string(entry, path, "note", presence::optional);
      ok = key && label && unit && section;
      // Errors name the metric by its key once it is known: "metric.dram_throughput.unit".
      const std::string named = key ? "metric." + *key : path;

      if (key) {
        if (!is_metric_key(*key)) {
          fields.error(entry.get("key")->source(), named + ".key",
                       "'" + *key + "' is not a metric key",
                       "keys are lower-case letters, digits and '_', starting with a letter, and not "
                       "'and', 'or' or 'not'");
          ok = false;
        } else if (auto first = key_lines.find(*key); first != key_lines.end()) {
          fields.error(entry.get("key")->source(), named + ".key",
                       "duplicate metric key '" + *key + "'",
                       "first defined on line " + std::to_string(first->second));
          ok = false;
        } else {
          key_lines.emplace(*key, m.line);
        }
      }
      if (unit) {
        if (auto parsed = metric_unit_from_string(*unit)) {
          m.unit = *parsed;
        } else {
          std::string hint = toml_reader::did_you_mean(*unit, units);
          if (hint.empty())
            hint = "known units: " + toml_reader::join_alternatives(units);
          fields.error(entry.get("unit")->source(), named + ".unit", "unknown unit '" + *unit + "'",
                       hint);
          ok = false;
        }
      }
      if (section && !schema.sections_.empty() &&
          std::find(section_views.begin(), section_views.end(), *section) == section_views.end()) {
        std::string hint = toml_reader::did_you_mean(*section, section_views);
        if (hint.empty())
          hint = "sections: " + toml_reader::join_alternatives(section_views) +
                 " (add a new one to `sections` first)";
        fields.error(entry.get("section")->source(), named + ".section",
                     "unknown section '" + *section + "'", hint);
        ok = false;
      }
      if (nsight.has_value() == formula.has_value()) {
        fields.error(entry.source(), named,
                     nsight ? "has both `nsight` and `formula`"
                            : "has neither `nsight` nor `formula`",
                     "a metric is either measured (nsight = \"<Nsight metric name>\") or derived "
                     "(formula = \"<expression over other keys>\")");
        ok = false;
      }
      if (nsight) {
        if (nsight->find("__") == std::string::npos) {
          fields.error(entry.get("nsight")->source(), named + ".nsight",
                       "'" + *nsight + "' is not an Nsight metric name",
                       "Nsight names look like unit__counter.rollup, e.g. dram__bytes_read.sum");
          ok = false;
        } else if (auto owner = nsight_owners.find(*nsight); owner != nsight_owners.end()) {
          fields.error(entry.get("nsight")->source(), named + ".nsight",
                       "Nsight metric '" + *nsight + "' is already read by '" + owner->second + "'",
                       "one Nsight metric maps to one key");
          ok = false;
        } else if (key) {
          nsight_owners.emplace(*nsight, *key);
        }
      }
      entry_places where{nullptr, path};
      if (formula) {
        where.formula = entry.get("formula");
        auto parsed = expression::real_expression::parse(*formula);
        // Columns inside the string are exact for a one-line basic string without escapes,
        // which is how formulas are written.
        if (!parsed) {
          fields.error(toml_reader::place_in_string(*where.formula, parsed.error().column),
                       named + ".formula", parsed.error().message);
          ok = false;
        } else if (parsed->type() != expression::result_type::number) {
          fields.error(where.formula->source(), named + ".formula",
                       "a formula must be a number, not a comparison or logic");
          ok = false;
        } else {
          m.formula = std::move(*parsed);
        }
      }
      if (!ok)
        continue;
      m.key = std::move(*key);
      m.label = std::move(*label);
      m.section = std::move(*section);
      m.nsight = nsight.value_or("");
      m.note = note.value_or("");
      schema.metrics_.push_back(std::move(m));
      places.push_back(std::move(where));
    }

    // Formulas may only name known keys, and must not depend on themselves.
    std::vector<std::string_view> all_keys;
    for (const auto& m : schema.metrics_)
      all_keys.push_back(m.key);
    bool references_ok = true;
    for (std::size_t i = 0; i < schema.metrics_.size(); ++i) {
      const auto& m = schema.metrics_[i];
      for (const auto& ref : m.formula.references()) {
        if (schema.find(ref.name) != nullptr || key_lines.contains(ref.name))
          continue;
        fields.error(toml_reader::place_in_string(*places[i].formula, ref.column),
                     "metric." + m.key + ".formula", "unknown metric '" + ref.name + "'",
                     toml_reader::did_you_mean(ref.name, all_keys));
        references_ok = false;
      }
    }
    if (references_ok) {
      // Depth-first topological sort; a grey node met again closes a cycle.
      enum class mark { white, grey, black };
      std::vector<mark> marks(schema.metrics_.size(), mark::white);
      std::vector<std::size_t> stack;
      auto index_of = [&](std::string_view key) {
        for (std::size_t i = 0; i < schema.metrics_.size(); ++i)
          if (schema.metrics_[i].key == key)
            return i;
        return schema.metrics_.size();
      };
      bool cyclic = false;
      auto visit = [&](auto& self, std::size_t i) -> void {
        if (marks[i] == mark::black || cyclic)
          return;
        if (marks[i] == mark::grey) {
          std::string cycle;
          auto start = std::find(stack.begin(), stack.end(), i);
          for (auto it = start; it != stack.end(); ++it)
            cycle += schema.metrics_[*it].key + " -> ";
          cycle += schema.metrics_[i].key;
          fields.error(places[i].formula->source(), "metric." + schema.metrics_[i].key + ".formula",
                       "formulas depend on themselves: " + cycle);
          cyclic = true;
          return;
        }
        marks[i] = mark::grey;
        stack.push_back(i);
        for (const auto& key : schema.metrics_[i].formula.names()) {
          const std::size_t j = index_of(key);
          if (j < schema.metrics_.size() && schema.metrics_[j].derived())
            self(self, j);
        }
        stack.pop_back();
        marks[i] = mark::black;
        if (schema.metrics_[i].derived())
          schema.derived_order_.push_back(i);
      };
      for (std::size_t i = 0; i < schema.metrics_.size(); ++i)
        if (schema.metrics_[i].derived())
          visit(visit, i);
    }
  });
  if (!read)
    return unexpected(std::move(read).error());
  return schema;
}

expected<metric_schema, toml_reader::placed_errors>
load_metric_schema(const std::filesystem::path& path) {
  return toml_reader::load_table(path, "the metric schema", parse_metric_schema);
}

const metric_schema& builtin_metric_schema() {
  static const metric_schema schema = toml_reader::builtin_table(
    parse_metric_schema(embedded::diagnosis_metric_schema_toml, "<builtin>/metric_schema.toml"), "metric schema");
  return schema;
}

} // namespace warpforge::diagnosis
