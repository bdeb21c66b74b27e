#include "diagnosis/rules.hpp"

#include "config/toml_reader/table_file.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <map>

namespace warpforge::embedded {
extern const std::string_view diagnosis_rules_toml; // diagnosis/data/rules.toml
}

namespace warpforge::diagnosis {

using toml_reader::index_key;
using toml_reader::presence;

namespace {

bool is_rule_id(std::string_view text) {
  if (text.empty() || !(text[0] >= 'a' && text[0] <= 'z'))
    return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// The {key} placeholders of a template, with their 1-based columns; an error message for a stray
// or unclosed brace.
struct placeholder {
  std::string key;
  std::uint32_t column = 0;
};

expected<std::vector<placeholder>, std::pair<std::string, std::uint32_t>>
placeholders(std::string_view text) {
  std::vector<placeholder> out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '}')
      return unexpected(
          std::pair{std::string{"'}' without '{'"}, static_cast<std::uint32_t>(i + 1)});
    if (text[i] != '{')
      continue;
    const std::size_t close = text.find('}', i);
    const std::size_t next_open = text.find('{', i + 1);
    if (close == std::string_view::npos ||
        (next_open != std::string_view::npos && next_open < close))
      return unexpected(
          std::pair{std::string{"'{' without '}'"}, static_cast<std::uint32_t>(i + 1)});
    out.push_back(
        {std::string{text.substr(i + 1, close - i - 1)}, static_cast<std::uint32_t>(i + 2)});
    i = close;
  }
  return out;
}

std::vector<std::string_view> schema_keys(const metric_schema& schema) {
  std::vector<std::string_view> out;
  for (const auto& m : schema.metrics())
    out.push_back(m.key);
  return out;
}

} // namespace

constexpr vocabulary::enum_word<severity> severity_words[] = {
    {severity::info, "info"}, {severity::warning, "warning"}, {severity::critical, "critical"}};
static_assert(vocabulary::covers(severity_words, all_severities));

std::string_view to_string(severity level) { return vocabulary::word_of(severity_words, level); }

std::optional<severity> severity_from_string(std::string_view text) {
  return vocabulary::value_of(severity_words, text);
}

constexpr vocabulary::enum_word<rule_outcome> rule_outcome_words[] = {
    {rule_outcome::fired, "fired"}, {rule_outcome::not_fired, "not_fired"},
    {rule_outcome::not_evaluated, "not_evaluated"}};
static_assert(vocabulary::covers(rule_outcome_words, all_rule_outcomes));

std::string_view to_string(rule_outcome outcome) { return vocabulary::word_of(rule_outcome_words, outcome); }

std::optional<rule_outcome> rule_outcome_from_string(std::string_view text) {
  return vocabulary::value_of(rule_outcome_words, text);
}

const rule* rule_set::find(std::string_view id) const {
  for (const auto& r : rules_)
    if (r.id == id)
      return &r;
  return nullptr;
}

expected<rule_set, toml_reader::placed_errors>
parse_rules(std::string_view text, const std::string& file, const metric_schema& schema) {
  constexpr std::string_view root_keys[] = {"rule"};
  const std::vector<std::string_view> keys = schema_keys(schema);
  rule_set rules;
  auto read = toml_reader::read_document(
    text, file, root_keys, [&](const toml::table& root, toml_reader::reader& fields) {
    // An unknown metric key, reported at its column inside the string `at`.
    auto unknown_metric = [&](const toml::node& at, const std::string& key_path,
                              const std::string& name, std::uint32_t column) {
      std::string hint = toml_reader::did_you_mean(name, keys);
      if (hint.empty())
        hint = "metric keys are defined in metric_schema.toml";
      fields.error(toml_reader::place_in_string(at, column), key_path,
                   "unknown metric '" + name + "'", hint);
    };

    std::map<std::string, std::uint32_t, std::less<>> id_lines;
    const auto entries = fields.tables(root, "", "rule", presence::required);
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const toml::table& entry = *entries[i];
      const std::string path = index_key("rule", i);
      constexpr std::string_view known[] = {"id", "severity", "when", "finding", "action", "source"};
      fields.check_keys(entry, path, known);

      rule r;
      r.line = entry.source().begin.line;
      auto id = fields.string(entry, path, "id", presence::required);
      auto level = fields.string(entry, path, "severity", presence::required);
      auto when = fields.string(entry, path, "when", presence::required);
      auto finding_text = fields.string(entry, path, "finding", presence::required);
      auto action = fields.string(entry, path, "action", presence::required);
      auto source = fields.string(entry, path, "source", presence::required);
      bool ok = id && level && when && finding_text && action && source;
      const std::string named = id ? "rule." + *id : path;

      if (id) {
        if (!is_rule_id(*id)) {
          fields.error(entry.get("id")->source(), named + ".id", "'" + *id + "' is not a rule id",
                       "ids are lower-case letters, digits and '_', starting with a letter");
          ok = false;
        } else if (auto first = id_lines.find(*id); first != id_lines.end()) {
          fields.error(entry.get("id")->source(), named + ".id", "duplicate rule id '" + *id + "'",
                       "first defined on line " + std::to_string(first->second));
          ok = false;
        } else {
          id_lines.emplace(*id, r.line);
        }
      }
      if (level) {
        if (auto parsed = severity_from_string(*level)) {
          r.level = *parsed;
        } else {
          fields.error(entry.get("severity")->source(), named + ".severity",
                       "unknown severity '" + *level + "'", "one of info, warning, critical");
          ok = false;
        }
      }
      if (when) {
        const toml::node& at = *entry.get("when");
        auto parsed = expression::real_expression::parse(*when);
        if (!parsed) {
          fields.error(toml_reader::place_in_string(at, parsed.error().column), named + ".when",
                       parsed.error().message);
          ok = false;
        } else if (parsed->type() != expression::result_type::truth) {
          fields.error(at.source(), named + ".when",
                       "a condition must be a truth value (a comparison, and/or/not), not a number");
          ok = false;
        } else {
          for (const auto& ref : parsed->references())
            if (schema.find(ref.name) == nullptr) {
              unknown_metric(at, named + ".when", ref.name, ref.column);
              ok = false;
            }
          r.when = std::move(*parsed);
        }
      }
      if (finding_text) {
        const toml::node& at = *entry.get("finding");
        auto found = placeholders(*finding_text);
        if (!found) {
          fields.error(toml_reader::place_in_string(at, found.error().second), named + ".finding",
                       found.error().first, "placeholders are {metric_key}");
          ok = false;
        } else {
          for (const auto& p : *found)
            if (schema.find(p.key) == nullptr) {
              unknown_metric(at, named + ".finding", p.key, p.column);
              ok = false;
            }
        }
      }
      for (const auto* field : {&action, &source})
        if (*field && (*field)->empty()) {
          const std::string_view name = field == &action ? "action" : "source";
          fields.error(entry.get(name)->source(), named + "." + std::string{name},
                       "must not be empty",
                       name == "source" ? "say where the threshold comes from" : "say what to try");
          ok = false;
        }
      if (!ok)
        continue;
      r.id = std::move(*id);
      r.finding = std::move(*finding_text);
      r.action = std::move(*action);
      r.source = std::move(*source);
      rules.rules_.push_back(std::move(r));
    }
  });
  if (!read)
    return unexpected(std::move(read).error());
  return rules;
}

expected<rule_set, toml_reader::placed_errors> load_rules(const std::filesystem::path& path,
                                                          const metric_schema& schema) {
  return toml_reader::load_table(path, "the rule matrix", [&](std::string_view text, const std::string& file) {
    return parse_rules(text, file, schema);
  });
}

const rule_set& builtin_rules() {
  static const rule_set rules = toml_reader::builtin_table(
    parse_rules(embedded::diagnosis_rules_toml, "<builtin>/rules.toml", builtin_metric_schema()), "rule matrix");
  return rules;
}

rule_outcome rule_evaluation::outcome(std::string_view rule_id) const {
  for (const auto& f : fired)
    if (f.rule_id == rule_id)
      return rule_outcome::fired;
  for (const auto& id : not_fired)
    if (id == rule_id)
      return rule_outcome::not_fired;
  return rule_outcome::not_evaluated;
}

std::string fill_template(std::string_view text, const metric_values& metrics,
                          const metric_schema& schema) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::size_t close = text[i] == '{' ? text.find('}', i) : std::string_view::npos;
    if (close == std::string_view::npos) {
      out += text[i];
      continue;
    }
    const std::string_view key = text.substr(i + 1, close - i - 1);
    const metric_definition* m = schema.find(key);
    const auto value = metrics.find(key);
    if (m != nullptr && value != metrics.end())
      out += format_value(value->second, m->unit);
    else
      out += "n/a";
    i = close;
  }
  return out;
}

rule_evaluation evaluate_rules(const rule_set& rules, const metric_values& metrics,
                               const metric_schema& schema) {
  rule_evaluation out;
  for (const auto& r : rules.rules()) {
    auto value = r.when.evaluate(metrics);
    if (!value) {
      out.not_evaluated.push_back({r.id, std::move(value).error()});
    } else if (*value != 0.0) {
      out.fired.push_back(
          {r.id, r.level, fill_template(r.finding, metrics, schema), r.action, r.source});
    } else {
      out.not_fired.push_back(r.id);
    }
  }
  std::stable_sort(out.fired.begin(), out.fired.end(),
                   [](const finding& a, const finding& b) { return a.level > b.level; });
  return out;
}

} // namespace warpforge::diagnosis
