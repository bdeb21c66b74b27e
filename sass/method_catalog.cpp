#include "sass/method_catalog.hpp"

#include "config/toml_reader/table_file.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <map>

namespace warpforge::embedded {
extern const std::string_view method_catalog_toml;
}

namespace warpforge::sass {
namespace {

using toml_reader::presence;

constexpr std::array<std::string_view, 2> root_keys{"method", "coupled"};
constexpr std::array<std::string_view, 9> method_keys{
    "id", "axis", "priority", "name", "min_sm", "trigger", "findings", "needs", "signature"};
constexpr std::array<std::string_view, 4> trigger_keys{"metric", "direction", "bad", "good"};
constexpr std::array<std::string_view, 2> coupled_keys{"methods", "note"};
constexpr std::int64_t max_min_sm = 1000; // sm_1000: far beyond any architecture; catches typos

bool is_method_name(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::optional<method_trigger> read_trigger(toml_reader::reader& reader, const toml::node& node,
                                           const std::string& path) {
  const auto* table = node.as_table();
  if (table == nullptr) {
    reader.wrong_type(node, path, "a table { metric, direction, bad, good }");
    return std::nullopt;
  }
  reader.check_keys(*table, path, trigger_keys);
  method_trigger trigger;
  if (auto metric = reader.string(*table, path, "metric", presence::required))
    trigger.metric = *metric;
  trigger.direction = reader.enumeration(*table, path, "direction", presence::optional,
                                         all_trigger_directions, &trigger_direction_from_string);
  trigger.bad = reader.number(*table, path, "bad", presence::optional);
  trigger.good = reader.number(*table, path, "good", presence::optional);
  const auto& at = node.source();
  if ((trigger.bad || trigger.good) && !trigger.direction && !table->get("direction"))
    reader.error(at, path + ".direction", "missing; bad and good need a direction",
                 "\"low_is_bad\" or \"high_is_bad\"");
  if (trigger.direction && trigger.bad && trigger.good) {
    const bool consistent = *trigger.direction == trigger_direction::low_is_bad
                                ? *trigger.bad < *trigger.good
                                : *trigger.bad > *trigger.good;
    if (!consistent)
      reader.error(at, path,
                   "bad = " + std::to_string(*trigger.bad) +
                     " and good = " + std::to_string(*trigger.good) + " contradict direction '" +
                     std::string{to_string(*trigger.direction)} + "'",
                   "low_is_bad needs bad < good; high_is_bad needs bad > good");
  }
  return trigger;
}

} // namespace

constexpr vocabulary::enum_word<method_axis> method_axis_words[] = {
    {method_axis::compute, "compute"}, {method_axis::memory, "memory"}, {method_axis::latency, "latency"}};
static_assert(vocabulary::covers(method_axis_words, all_method_axes));

std::string_view to_string(method_axis axis) { return vocabulary::word_of(method_axis_words, axis); }

std::optional<method_axis> method_axis_from_string(std::string_view text) {
  return vocabulary::value_of(method_axis_words, text);
}

constexpr vocabulary::enum_word<method_need> method_need_words[] = {
    {method_need::arithmetic, "arithmetic"}, {method_need::matrix_multiply, "matrix_multiply"},
    {method_need::several_kernels, "several_kernels"}};
static_assert(vocabulary::covers(method_need_words, all_method_needs));

std::string_view to_string(method_need need) { return vocabulary::word_of(method_need_words, need); }

std::optional<method_need> method_need_from_string(std::string_view text) {
  return vocabulary::value_of(method_need_words, text);
}

constexpr vocabulary::enum_word<trigger_direction> trigger_direction_words[] = {
    {trigger_direction::low_is_bad, "low_is_bad"}, {trigger_direction::high_is_bad, "high_is_bad"}};
static_assert(vocabulary::covers(trigger_direction_words, all_trigger_directions));

std::string_view to_string(trigger_direction direction) {
  return vocabulary::word_of(trigger_direction_words, direction);
}

std::optional<trigger_direction> trigger_direction_from_string(std::string_view text) {
  return vocabulary::value_of(trigger_direction_words, text);
}

const method_catalog& method_catalog::builtin() {
  static const method_catalog catalog =
    toml_reader::builtin_table(parse(embedded::method_catalog_toml, std::string{builtin_catalog_file}),
                               "method catalog");
  return catalog;
}

expected<method_catalog, toml_reader::placed_errors>
method_catalog::load(const std::filesystem::path& path) {
  return toml_reader::load_table(path, "the method catalog", &method_catalog::parse);
}

expected<method_catalog, toml_reader::placed_errors> method_catalog::parse(std::string_view text,
                                                                           std::string file) {
  method_catalog catalog;
  catalog.file_ = file;
  auto read = toml_reader::read_document(
    text, file, root_keys, [&](const toml::table& document, toml_reader::reader& reader) {
    std::map<std::string, std::uint32_t, std::less<>> id_lines;                   // id → line
    std::map<std::pair<method_axis, std::int64_t>, std::string> priority_owner; // → id

    const auto entries = reader.tables(document, "", "method", presence::required);
    for (std::size_t index = 0; index < entries.size(); ++index) {
      const toml::table& entry = *entries[index];
      const std::string path = toml_reader::index_key("method", index);
      reader.check_keys(entry, path, method_keys);
      method_entry method;
      method.line = entry.source().begin.line;

      const auto id = reader.string(entry, path, "id", presence::required);
      const auto axis = reader.enumeration(entry, path, "axis", presence::required, all_method_axes,
                                           &method_axis_from_string);
      if (axis)
        method.axis = *axis;
      if (id) {
        const auto& at = entry.get("id")->source();
        method.id = *id;
        const auto dot = id->find('.');
        const auto prefix = std::string_view{*id}.substr(0, dot);
        if (dot == std::string::npos || !is_method_name(id->substr(dot + 1)))
          reader.error(at, path + ".id", "'" + *id + "' is not a method id",
                       "write <axis>.<name>, the name in lower case, digits and '_'");
        else if (axis && prefix != to_string(*axis))
          reader.error(at, path + ".id",
                       "the id's axis '" + std::string{prefix} + "' differs from axis = '" +
                         std::string{to_string(*axis)} + "'");
        if (auto [it, inserted] = id_lines.emplace(*id, at.begin.line); !inserted)
          reader.error(at, path + ".id",
                       "duplicate id '" + *id + "' (first at line " + std::to_string(it->second) +
                         ")");
      }
      if (auto priority = reader.integer(entry, path, "priority", presence::required)) {
        const auto& at = entry.get("priority")->source();
        if (*priority < 1) {
          reader.error(at, path + ".priority",
                       "must be at least 1, got " + std::to_string(*priority));
        } else {
          method.priority = static_cast<std::uint32_t>(*priority);
          if (axis) {
            auto [it, inserted] = priority_owner.emplace(std::pair{method.axis, *priority}, method.id);
            if (!inserted)
              reader.error(at, path + ".priority",
                           "priority " + std::to_string(*priority) + " of axis " +
                             std::string{to_string(*axis)} + " is already taken by '" + it->second +
                             "'",
                           "priorities are unique within an axis");
          }
        }
      }
      if (auto name = reader.string(entry, path, "name", presence::required)) {
        if (name->empty())
          reader.error(entry.get("name")->source(), path + ".name", "must not be empty");
        method.name = *name;
      }
      if (auto min_sm = reader.integer(entry, path, "min_sm", presence::optional)) {
        if (*min_sm < 0 || *min_sm > max_min_sm)
          reader.error(entry.get("min_sm")->source(), path + ".min_sm",
                       "must be 0 or a compute capability × 10 (e.g. 90), got " +
                         std::to_string(*min_sm));
        else
          method.min_sm = static_cast<std::uint32_t>(*min_sm);
      }
      if (const toml::node* trigger = entry.get("trigger"))
        method.trigger = read_trigger(reader, *trigger, path + ".trigger");
      if (auto findings = reader.strings(entry, path, "findings", presence::required)) {
        if (findings->empty())
          reader.error(entry.get("findings")->source(), path + ".findings",
                       "empty; name the diagnosis rules that make this method worth trying");
        for (std::size_t i = 0; i < findings->size(); ++i) {
          const auto& finding = (*findings)[i];
          if (std::find(finding_rule_ids.begin(), finding_rule_ids.end(), finding.value) ==
              finding_rule_ids.end())
            reader.unknown_value(finding.at, toml_reader::index_key(path + ".findings", i),
                                 finding.value, finding_rule_ids);
          method.findings.push_back(finding.value);
        }
      }
      if (auto needs = reader.strings(entry, path, "needs", presence::optional)) {
        std::array<std::string_view, std::size(all_method_needs)> names{};
        for (std::size_t i = 0; i < names.size(); ++i)
          names[i] = to_string(all_method_needs[i]);
        for (std::size_t i = 0; i < needs->size(); ++i) {
          const auto& need = (*needs)[i];
          if (auto known = method_need_from_string(need.value))
            method.needs.push_back(*known);
          else
            reader.unknown_value(need.at, toml_reader::index_key(path + ".needs", i), need.value,
                                 names);
        }
      }
      if (auto signature = reader.string(entry, path, "signature", presence::optional))
        method.signature = *signature;
      else
        method.signature = method.id;
      catalog.methods_.push_back(std::move(method));
    }

    const auto couplings = reader.tables(document, "", "coupled", presence::optional);
    for (std::size_t index = 0; index < couplings.size(); ++index) {
      const toml::table& entry = *couplings[index];
      const std::string path = toml_reader::index_key("coupled", index);
      reader.check_keys(entry, path, coupled_keys);
      method_coupling coupling;
      if (auto note = reader.string(entry, path, "note", presence::optional))
        coupling.note = *note;
      auto methods = reader.strings(entry, path, "methods", presence::required);
      if (!methods)
        continue;
      if (methods->size() != 2) {
        reader.error(entry.get("methods")->source(), path + ".methods",
                     "expected two method ids, got " + std::to_string(methods->size()));
        continue;
      }
      for (std::size_t i = 0; i < 2; ++i) {
        const auto& id = (*methods)[i];
        if (!id_lines.contains(id.value))
          reader.error(id.at, toml_reader::index_key(path + ".methods", i),
                       "unknown method '" + id.value + "'", "use an id of a [[method]] above");
        coupling.methods[i] = id.value;
      }
      if (coupling.methods[0] == coupling.methods[1])
        reader.error(entry.get("methods")->source(), path + ".methods",
                     "a method cannot be coupled with itself");
      catalog.couplings_.push_back(std::move(coupling));
    }
  });
  if (!read)
    return unexpected(std::move(read).error());
  return catalog;
}

const method_entry* method_catalog::find(std::string_view id) const {
  for (const auto& method : methods_)
    if (method.id == id)
      return &method;
  return nullptr;
}

std::vector<const method_entry*> method_catalog::on_axis(method_axis axis) const {
  std::vector<const method_entry*> result;
  for (const auto& method : methods_)
    if (method.axis == axis)
      result.push_back(&method);
  std::sort(result.begin(), result.end(),
            [](const method_entry* a, const method_entry* b) { return a->priority < b->priority; });
  return result;
}

bool method_catalog::coupled(std::string_view a, std::string_view b) const {
  for (const auto& coupling : couplings_)
    if ((coupling.methods[0] == a && coupling.methods[1] == b) ||
        (coupling.methods[0] == b && coupling.methods[1] == a))
      return true;
  return false;
}

toml_reader::placed_errors cross_check(const method_catalog& catalog,
                                       const signature_table& table) {
  toml_reader::placed_errors errors;
  for (std::size_t i = 0; i < catalog.methods().size(); ++i) {
    const auto& method = catalog.methods()[i];
    if (table.find(method.signature) == nullptr)
      errors.push_back({catalog.file(), method.line, 0,
                        "method[" + std::to_string(i) + "].signature",
                        "signature '" + method.signature + "' of method '" + method.id +
                            "' is not in " + table.file(),
                        "add a [[signature]] with this id (verify = \"runtime\" when SASS "
                        "cannot show the method)"});
  }
  for (std::size_t i = 0; i < table.signatures().size(); ++i) {
    const auto& signature = table.signatures()[i];
    const auto dot = signature.id.find('.');
    if (dot == std::string::npos)
      continue; // a short evidence name, not a method
    if (!method_axis_from_string(std::string_view{signature.id}.substr(0, dot)))
      continue;
    const bool referenced =
        std::any_of(catalog.methods().begin(), catalog.methods().end(),
                    [&](const method_entry& method) { return method.signature == signature.id; });
    if (catalog.find(signature.id) == nullptr && !referenced)
      errors.push_back({table.file(), signature.line, 0,
                        "signature[" + std::to_string(i) + "].id",
                        "signature '" + signature.id + "' names no method of " + catalog.file(),
                        "fix the id, or add the method to the catalog"});
  }
  return errors;
}

} // namespace warpforge::sass
