#include "llm/chat/prices.hpp"

#include "config/toml_reader/reader.hpp"

#include <set>

namespace warpforge::embedded {
extern const std::string_view llm_chat_prices_toml; // llm/chat/prices.toml
}

namespace warpforge::llm {

using toml_reader::index_key;
using toml_reader::presence;

namespace {

constexpr double per_million = 1e-6; // $ per million tokens -> $ per token

// Reads one [[model]] entry; nullopt when a required field is missing or mistyped (reported).
std::optional<model_price> read_entry(toml_reader::reader& fields, const toml::table& entry,
                                      const std::string& path) {
  constexpr std::string_view known[] = {"name",       "provider",    "input",  "output",
                                        "cache_read", "cache_write", "source", "checked"};
  fields.check_keys(entry, path, known);
  auto name = fields.string(entry, path, "name", presence::required);
  auto provider = fields.string(entry, path, "provider", presence::required);
  auto input = fields.number(entry, path, "input", presence::required);
  auto output = fields.number(entry, path, "output", presence::required);
  auto cache_read = fields.number(entry, path, "cache_read", presence::required);
  auto cache_write = fields.number(entry, path, "cache_write", presence::required);
  auto source = fields.string(entry, path, "source", presence::required);
  auto checked = fields.string(entry, path, "checked", presence::required);
  if (!(name && provider && input && output && cache_read && cache_write && source && checked))
    return std::nullopt;
  for (auto [key, value] : {std::pair{"input", *input}, {"output", *output},
                            {"cache_read", *cache_read}, {"cache_write", *cache_write}})
    if (value < 0)
      fields.error(entry.get(key)->source(), toml_reader::join_key(path, key),
                   "a price cannot be negative", "prices are $ per million tokens");
  return model_price{*name, *provider, *input, *output, *cache_read, *cache_write, *source,
                     *checked};
}

// Whether `prefix` names the family of `model`: the name goes on with a separator.
bool family_prefix(std::string_view prefix, std::string_view model) {
  if (prefix.size() >= model.size() || !model.starts_with(prefix))
    return false;
  const char next = model[prefix.size()];
  return next == '-' || next == '.' || next == ':' || next == '@';
}

} // namespace

expected<price_table, std::string> price_table::built_in() {
  return parse(embedded::llm_chat_prices_toml, "<builtin>/llm/chat/prices.toml");
}

expected<price_table, std::string> price_table::parse(std::string_view text,
                                                      const std::string& file) {
  auto document = toml_reader::parse(text, file);
  if (!document)
    return unexpected(toml_reader::to_string(document.error()));
  const toml::table& root = *document;
  toml_reader::placed_errors errors;
  toml_reader::reader fields{file, errors};
  constexpr std::string_view root_keys[] = {"model"};
  fields.set_root_keys(root_keys);
  fields.check_keys(root, "", root_keys);

  price_table table;
  std::set<std::string, std::less<>> names;
  const auto entries = fields.tables(root, "", "model", presence::required);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string path = index_key("model", i);
    auto price = read_entry(fields, *entries[i], path);
    if (!price)
      continue;
    if (!names.insert(price->name).second)
      fields.error(entries[i]->get("name")->source(), path + ".name",
                   "model '" + price->name + "' is listed twice");
    table.entries_.push_back(std::move(*price));
  }
  if (!errors.empty()) {
    toml_reader::sort_by_place(errors);
    return unexpected(toml_reader::to_string(errors));
  }
  return table;
}

const model_price* price_table::find(std::string_view model) const {
  const model_price* best = nullptr;
  for (const auto& entry : entries_) {
    if (entry.name == model)
      return &entry;
    if (family_prefix(entry.name, model) && (best == nullptr || entry.name.size() > best->name.size()))
      best = &entry;
  }
  return best;
}

std::optional<double> price_table::cost_usd(std::string_view model,
                                            const token_usage& usage) const {
  const model_price* price = find(model);
  if (price == nullptr)
    return std::nullopt;
  const double dollars = static_cast<double>(usage.input) * price->input +
                         static_cast<double>(usage.output) * price->output +
                         static_cast<double>(usage.cache_read) * price->cache_read +
                         static_cast<double>(usage.cache_write) * price->cache_write;
  return dollars * per_million;
}

} // namespace warpforge::llm
