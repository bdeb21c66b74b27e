#pragma once
// What a model's tokens cost: a table of US dollars per million tokens per model, read from
// llm/chat/prices.toml (compiled in) or a user's copy of it. The file documents its matching rule
// and the rule for models it does not list (applied by provider_client: they cost $0); each entry
// names its source and the date it was checked.

#include "foundation/expected/expected.hpp"
#include "llm/chat/chat.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::llm {

struct model_price {
  std::string name;      // a model name, or the prefix of a family ("claude-sonnet-4")
  std::string provider;  // "anthropic", "openai": for people reading the table
  double input = 0;      // $ per million tokens
  double output = 0;     // $ per million tokens
  double cache_read = 0; // $ per million tokens
  double cache_write = 0;// $ per million tokens
  std::string source;    // where the numbers were read (a URL)
  std::string checked;   // when, YYYY-MM-DD
};

class price_table {
public:
  /// The table compiled from llm/chat/prices.toml.
  static expected<price_table, std::string> built_in();
  /// A table from TOML text in prices.toml's format; the error lists every problem with its place.
  static expected<price_table, std::string> parse(std::string_view text, const std::string& file);

  /// The entry pricing `model`: the exact name, else the longest listed prefix of it that ends
  /// where the name goes on with '-', '.', ':' or '@'; nullptr when none does.
  const model_price* find(std::string_view model) const;

  /// The cost of `usage` at `model`'s prices ($), or nullopt when the table has no price for it.
  std::optional<double> cost_usd(std::string_view model, const token_usage& usage) const;

  std::span<const model_price> entries() const { return entries_; }

private:
  std::vector<model_price> entries_;
};

} // namespace warpforge::llm
