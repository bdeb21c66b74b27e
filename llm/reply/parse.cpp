#include "llm/reply/parse.hpp"

#include "config/expression/expression.hpp"
#include "llm/reply/code_check.hpp"
#include "llm/reply/json_text.hpp"
#include "config/toml_reader/placed_error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <span>

namespace warpforge::llm {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

std::string type_name(element value) {
  switch (value.type()) {
  case element_type::ARRAY: return "an array";
  case element_type::OBJECT: return "an object";
  case element_type::INT64: case element_type::UINT64: return "an integer";
  case element_type::DOUBLE: return "a number with a fraction";
  case element_type::STRING: return "a string";
  case element_type::BOOL: return "true/false";
  case element_type::NULL_VALUE: return "null";
  }
  return "a value";
}

std::string path(const std::string& where, std::string_view key) {
  return where.empty() ? std::string{key} : where + "." + std::string{key};
}

std::string indexed(const std::string& where, std::size_t index) {
  return where + "[" + std::to_string(index) + "]";
}

std::string joined(std::span<const std::string_view> words) {
  return fmt::format("{}", fmt::join(words, ", "));
}

// The words of a method id ("memory.tiling_smem" -> memory, smem, tiling), sorted.
std::vector<std::string> words_of(std::string_view id) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : std::string{id} + ".") {
    if (c == '.' || c == '_') {
      if (!word.empty())
        words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  std::sort(words.begin(), words.end());
  return words;
}

// The known id with the same words in another order ("memory.smem_tiling"), which edit distance
// misses.
std::optional<std::string> same_words(std::string_view id, const std::vector<std::string>& known) {
  const auto words = words_of(id);
  for (const auto& candidate : known)
    if (words_of(candidate) == words)
      return candidate;
  return std::nullopt;
}

// Walks the reply's JSON into the envelope, collecting every problem on the way.
class reply_reader {
public:
  explicit reply_reader(const kernel_contract& contract) : contract_(contract) {}

  void read(element root, envelope& out);
  std::vector<reply_problem>&& problems() && { return std::move(problems_); }
  bool ok() const { return problems_.empty(); }

private:
  void problem(reply_fault fault, std::string where, std::string reason) {
    problems_.push_back({fault, std::move(where), std::move(reason)});
  }
  std::optional<object> as_object(element value, const std::string& where,
                                  std::span<const std::string_view> keys);
  std::optional<element> field(object from, std::string_view key, const std::string& where,
                               bool required);
  std::optional<std::string> string_field(object from, std::string_view key,
                                          const std::string& where, bool required);
  void read_variant(element value, const std::string& where, proposed_variant& out);
  void read_name(object from, const std::string& where, std::string& out);
  void read_methods(object from, const std::string& where, std::vector<std::string>& out);
  bool known_method(const std::string& id, const std::string& where);
  void read_code(object from, const std::string& where, std::string& out);
  void read_defines(element value, const std::string& where, expression::integer_values& out);
  std::optional<variant_launch> read_launch(element value, const std::string& where);
  void read_axes(object from, std::string_view key, const std::string& where,
                 std::vector<std::string>& out);
  std::optional<std::string> read_expression(element value, const std::string& where);
  void read_ablations(element value, const std::string& where, proposed_variant& variant);

  const kernel_contract& contract_;
  std::set<std::string, std::less<>> names_;
  std::vector<reply_problem> problems_;
};

constexpr std::array<std::string_view, 2> envelope_keys{"analysis", "variants"};
constexpr std::array<std::string_view, 7> variant_keys{"name",    "memo", "methods", "defines",
                                                       "launch",  "code", "ablations"};
constexpr std::array<std::string_view, 4> ablation_keys{"without", "code", "defines", "launch"};
constexpr std::array<std::string_view, 3> launch_keys{"grid", "block", "shared_bytes"};

std::optional<object> reply_reader::as_object(element value, const std::string& where,
                                              std::span<const std::string_view> keys) {
  object out;
  if (value.get(out) != simdjson::SUCCESS) {
    problem(reply_fault::schema, where, "must be an object, got " + type_name(value));
    return std::nullopt;
  }
  std::set<std::string_view> seen;
  for (const auto field : out) {
    if (std::find(keys.begin(), keys.end(), field.key) == keys.end())
      problem(reply_fault::schema, where + "." + std::string{field.key},
              "unknown key '" + std::string{field.key} + "'; the keys here are: " + joined(keys));
    else if (!seen.insert(field.key).second)
      problem(reply_fault::schema, where + "." + std::string{field.key}, "the key is repeated");
  }
  return out;
}

std::optional<element> reply_reader::field(object from, std::string_view key,
                                           const std::string& where, bool required) {
  element value;
  if (from.at_key(key).get(value) == simdjson::SUCCESS)
    return value;
  if (required)
    problem(reply_fault::schema, path(where, key), "the key is missing");
  return std::nullopt;
}

std::optional<std::string> reply_reader::string_field(object from, std::string_view key,
                                                      const std::string& where, bool required) {
  const auto value = field(from, key, where, required);
  if (!value)
    return std::nullopt;
  std::string_view text;
  if (value->get(text) != simdjson::SUCCESS) {
    problem(reply_fault::schema, path(where, key), "must be a string, got " + type_name(*value));
    return std::nullopt;
  }
  return std::string{text};
}

} // namespace

namespace {

void reply_reader::read(element root, envelope& out) {
  const auto top = as_object(root, "reply", envelope_keys);
  if (!top)
    return;
  if (auto analysis = string_field(*top, "analysis", "", false))
    out.analysis = *analysis;
  const auto variants = field(*top, "variants", "", true);
  if (!variants)
    return;
  simdjson::dom::array array;
  if (variants->get(array) != simdjson::SUCCESS) {
    problem(reply_fault::schema, "variants", "must be an array, got " + type_name(*variants));
    return;
  }
  if (array.size() == 0)
    problem(reply_fault::no_variants, "variants",
            "the array is empty; give at least one variant");
  if (array.size() > contract_.max_variants)
    problem(reply_fault::too_many_variants, "variants",
            std::to_string(array.size()) + " variants; give at most " +
              std::to_string(contract_.max_variants));
  std::size_t index = 0;
  for (const auto value : array) {
    proposed_variant variant;
    read_variant(value, indexed("variants", index++), variant);
    out.variants.push_back(std::move(variant));
  }
}

void reply_reader::read_variant(element value, const std::string& where, proposed_variant& out) {
  const auto from = as_object(value, where, variant_keys);
  if (!from)
    return;
  read_name(*from, where, out.name);
  if (auto memo = string_field(*from, "memo", where, true)) {
    if (memo->find_first_not_of(" \t\r\n") == std::string::npos)
      problem(reply_fault::schema, path(where, "memo"), "is empty; say in one line what changes");
    else if (memo->find('\n') != std::string::npos)
      problem(reply_fault::schema, path(where, "memo"), "must be one line");
    out.memo = std::move(*memo);
  }
  read_methods(*from, where, out.methods);
  read_code(*from, where, out.code);
  if (auto defines = field(*from, "defines", where, false))
    read_defines(*defines, path(where, "defines"), out.defines);
  if (auto launch = field(*from, "launch", where, false))
    out.launch = read_launch(*launch, path(where, "launch"));
  if (auto ablations = field(*from, "ablations", where, false))
    read_ablations(*ablations, path(where, "ablations"), out);
}

// 1 to 64 of a-z, 0-9 and _ (a variant's name becomes a file and folder name).
bool is_variant_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// A C identifier of at most 64 characters.
bool is_macro_name(std::string_view name) {
  const auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; };
  return !name.empty() && name.size() <= 64 && !(name.front() >= '0' && name.front() <= '9') &&
         std::all_of(name.begin(), name.end(), word);
}

void reply_reader::read_name(object from, const std::string& where, std::string& out) {
  auto name = string_field(from, "name", where, true);
  if (!name)
    return;
  if (!is_variant_name(*name))
    problem(reply_fault::schema, path(where, "name"),
            "'" + *name + "' is not a name: use 1 to 64 of a-z, 0-9 and _");
  else if (!names_.insert(*name).second)
    problem(reply_fault::duplicate_name, path(where, "name"),
            "another variant is named '" + *name + "'; give each variant its own name");
  out = std::move(*name);
}

void reply_reader::read_methods(object from, const std::string& where,
                                std::vector<std::string>& out) {
  const std::string place = path(where, "methods");
  const auto value = field(from, "methods", where, true);
  simdjson::dom::array array;
  if (!value)
    return;
  if (value->get(array) != simdjson::SUCCESS) {
    problem(reply_fault::schema, place, "must be an array of method ids, got " + type_name(*value));
    return;
  }
  if (array.size() == 0) {
    problem(reply_fault::schema, place, "is empty; claim the method ids this variant applies");
    return;
  }
  std::size_t index = 0;
  for (const auto item : array) {
    const std::string item_place = indexed(place, index++);
    std::string_view id;
    if (item.get(id) != simdjson::SUCCESS)
      problem(reply_fault::schema, item_place, "must be a string, got " + type_name(item));
    else if (std::find(out.begin(), out.end(), id) != out.end())
      problem(reply_fault::schema, item_place, "'" + std::string{id} + "' is claimed twice");
    else if (known_method(std::string{id}, item_place))
      out.emplace_back(id);
  }
}

bool reply_reader::known_method(const std::string& id, const std::string& where) {
  const auto& known = contract_.known_methods;
  if (std::find(known.begin(), known.end(), id) != known.end())
    return true;
  std::vector<std::string_view> candidates(known.begin(), known.end());
  std::string reason = "'" + id + "' is not a method id of the catalog";
  if (auto match = same_words(id, known).value_or(toml_reader::closest_match(id, candidates).value_or(""));
      !match.empty())
    reason += "; did you mean '" + match + "'?";
  const std::string axis = id.substr(0, id.find('.') + 1);
  std::vector<std::string_view> examples;
  for (const auto& candidate : known)
    if (examples.size() < 4 && (axis.size() < 2 || candidate.starts_with(axis)))
      examples.push_back(candidate);
  for (const auto& candidate : known)
    if (examples.size() < 4 && std::find(examples.begin(), examples.end(), candidate) == examples.end())
      examples.push_back(candidate);
  reason += examples.empty() ? "; no method ids are known"
                             : "; valid ids look like " + joined(examples) +
                                 " (the catalog in the prompt lists them all)";
  problem(reply_fault::unknown_method, where, std::move(reason));
  return false;
}

void reply_reader::read_code(object from, const std::string& where, std::string& out) {
  const std::string place = path(where, "code");
  const auto value = field(from, "code", where, false);
  std::string_view text;
  if (!value)
    problem(reply_fault::no_code, place, "the key is missing; give the complete kernel source");
  else if (value->get(text) != simdjson::SUCCESS)
    problem(reply_fault::schema, place,
            "must be a string holding the kernel source, got " + type_name(*value));
  else
    for (auto& found : check_code(text, place, contract_))
      problems_.push_back(std::move(found));
  out = std::string{text};
}

} // namespace

namespace {

void reply_reader::read_defines(element value, const std::string& where,
                                expression::integer_values& out) {
  object defines;
  if (value.get(defines) != simdjson::SUCCESS) {
    problem(reply_fault::bad_define, where,
            "must be an object of NAME: integer, got " + type_name(value));
    return;
  }
  for (const auto [key, item] : defines) {
    const std::string name{key};
    const std::string place = path(where, name);
    std::int64_t number = 0;
    if (!is_macro_name(name) || name.starts_with("__"))
      problem(reply_fault::bad_define, place,
              "'" + name + "' is not a macro name: use a C identifier not starting with __");
    else if (item.get(number) != simdjson::SUCCESS)
      problem(reply_fault::bad_define, place,
              "must be an integer (it is passed as -D" + name + "=value), got " + type_name(item));
    else if (!out.emplace(name, number).second)
      problem(reply_fault::bad_define, place, "the define is repeated");
  }
}

std::optional<std::string> reply_reader::read_expression(element value, const std::string& where) {
  std::string_view text;
  std::int64_t number = 0;
  if (value.get(number) == simdjson::SUCCESS)
    return std::to_string(number);
  if (value.get(text) != simdjson::SUCCESS) {
    problem(reply_fault::bad_launch, where,
            "must be an integer or an expression string, got " + type_name(value));
    return std::nullopt;
  }
  auto parsed = expression::integer_expression::parse(text);
  if (!parsed) {
    problem(reply_fault::bad_launch, where,
            "\"" + std::string{text} + "\": " + parsed.error().message + " (column " +
              std::to_string(parsed.error().column) + ")");
    return std::nullopt;
  }
  return std::string{text};
}

void reply_reader::read_axes(object from, std::string_view key, const std::string& where,
                             std::vector<std::string>& out) {
  const std::string place = path(where, key);
  const auto value = field(from, key, where, true);
  simdjson::dom::array array;
  if (!value)
    return;
  if (value->get(array) != simdjson::SUCCESS || array.size() == 0 || array.size() > 3) {
    problem(reply_fault::bad_launch, place,
            "must be an array of 1 to 3 expressions (x, y, z), got " +
              (value->is_array() ? std::to_string(array.size()) + " entries" : type_name(*value)));
    return;
  }
  std::size_t index = 0;
  for (const auto item : array)
    if (auto text = read_expression(item, indexed(place, index++)))
      out.push_back(std::move(*text));
}

std::optional<variant_launch> reply_reader::read_launch(element value, const std::string& where) {
  const std::size_t before = problems_.size();
  const auto from = as_object(value, where, launch_keys);
  if (!from)
    return std::nullopt;
  variant_launch out;
  read_axes(*from, "grid", where, out.grid);
  read_axes(*from, "block", where, out.block);
  if (auto shared = field(*from, "shared_bytes", where, false))
    if (auto text = read_expression(*shared, path(where, "shared_bytes")))
      out.shared_bytes = std::move(*text);
  if (problems_.size() != before)
    return std::nullopt;
  return out;
}

void reply_reader::read_ablations(element value, const std::string& where,
                                  proposed_variant& variant) {
  simdjson::dom::array array;
  if (value.get(array) != simdjson::SUCCESS) {
    problem(reply_fault::schema, where, "must be an array, got " + type_name(value));
    return;
  }
  std::size_t index = 0;
  for (const auto item : array) {
    const std::string place = indexed(where, index++);
    const auto from = as_object(item, place, ablation_keys);
    if (!from)
      continue;
    leave_one_out out{{}, {}, variant.defines, variant.launch};
    if (auto without = string_field(*from, "without", place, true)) {
      const auto claimed = std::find(variant.methods.begin(), variant.methods.end(), *without);
      const bool repeated = std::any_of(variant.ablations.begin(), variant.ablations.end(),
                                        [&](const auto& a) { return a.without == *without; });
      if (claimed == variant.methods.end() && known_method(*without, path(place, "without")))
        problem(reply_fault::schema, path(place, "without"),
                "'" + *without + "' is not one of this variant's methods; an ablation undoes one "
                "method the variant claims");
      else if (repeated)
        problem(reply_fault::schema, path(place, "without"),
                "a second ablation without '" + *without + "'; give one per method");
      out.without = std::move(*without);
    }
    read_code(*from, place, out.code);
    if (auto defines = field(*from, "defines", place, false)) {
      out.defines.clear();
      read_defines(*defines, path(place, "defines"), out.defines);
    }
    if (auto launch = field(*from, "launch", place, false))
      out.launch = read_launch(*launch, path(place, "launch"));
    variant.ablations.push_back(std::move(out));
  }
}

} // namespace

expected<envelope, std::vector<reply_problem>> parse_reply(std::string_view reply_text,
                                                           const kernel_contract& contract) {
  if (reply_text.size() > max_reply_bytes)
    return unexpected(std::vector<reply_problem>{
      {reply_fault::too_long, "reply",
       "the reply is " + std::to_string(reply_text.size()) + " bytes; a reply may hold at most " +
         std::to_string(max_reply_bytes) + " bytes"}});
  auto json = json_text::locate(reply_text);
  if (!json)
    return unexpected(std::vector<reply_problem>{json.error()});
  simdjson::dom::parser parser;
  element root;
  if (parser.parse(json->text.data(), json->text.size()).get(root) != simdjson::SUCCESS)
    return unexpected(std::vector<reply_problem>{json_text::syntax_problem(reply_text, *json)});
  reply_reader reader{contract};
  envelope out;
  reader.read(root, out);
  if (!reader.ok())
    return unexpected(std::move(reader).problems());
  return out;
}

} // namespace warpforge::llm
