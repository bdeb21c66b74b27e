#include "sass/signature_table.hpp"

#include "sass/data_reader.hpp"

#include <array>
#include <map>
#include <regex>
#include <stdexcept>

namespace warpforge::embedded {
extern const std::string_view sass_signatures_toml;
}

namespace warpforge::sass {

struct compiled_pattern {
  std::regex regex;
};

namespace {

constexpr std::array<std::string_view, 1> root_keys{"signature"};
constexpr std::array<std::string_view, 6> entry_keys{"id",     "verify", "match",
                                                     "patterns", "forbid", "reason"};

template <class Enum, std::size_t N>
std::array<std::string_view, N> names_of(const Enum (&all)[N]) {
  std::array<std::string_view, N> names;
  for (std::size_t i = 0; i < N; ++i)
    names[i] = to_string(all[i]);
  return names;
}

/// Compiles each placed pattern, reporting bad ones at their place.
std::vector<signature_pattern> compile_all(detail::data_reader& reader,
                                           const std::vector<detail::placed_string>& texts,
                                           const std::string& key) {
  std::vector<signature_pattern> patterns;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto& text = texts[i];
    if (text.value.empty()) {
      reader.error(text.line, text.column, detail::index_key(key, i), "empty pattern",
                   "write a regular expression over the mnemonic, e.g. '^LDG\\..*\\b128\\b'");
      continue;
    }
    auto compiled = signature_pattern::compile(text.value);
    if (!compiled) {
      reader.error(text.line, text.column, detail::index_key(key, i),
                   "invalid regular expression '" + text.value + "': " + compiled.error(),
                   "ECMAScript syntax, as std::regex reads it");
      continue;
    }
    patterns.push_back(std::move(*compiled));
  }
  return patterns;
}

} // namespace

std::string_view to_string(match_mode mode) {
  switch (mode) {
    case match_mode::any: return "any";
    case match_mode::all: return "all";
  }
  return "unknown";
}

std::optional<match_mode> match_mode_from_string(std::string_view text) {
  for (auto mode : all_match_modes)
    if (to_string(mode) == text)
      return mode;
  return std::nullopt;
}

std::string_view to_string(verify_mode mode) {
  switch (mode) {
    case verify_mode::sass: return "sass";
    case verify_mode::runtime: return "runtime";
  }
  return "unknown";
}

std::optional<verify_mode> verify_mode_from_string(std::string_view text) {
  for (auto mode : all_verify_modes)
    if (to_string(mode) == text)
      return mode;
  return std::nullopt;
}

expected<signature_pattern, std::string> signature_pattern::compile(std::string text) {
  try {
    auto compiled = std::make_shared<compiled_pattern>(compiled_pattern{
        std::regex(text, std::regex::ECMAScript | std::regex::icase | std::regex::optimize)});
    return signature_pattern(std::move(text), std::move(compiled));
  } catch (const std::regex_error& failure) {
    // std::regex reports a malformed pattern only by throwing; it is a data error here.
    return unexpected(std::string{failure.what()});
  }
}

bool signature_pattern::matches(std::string_view mnemonic) const {
  return std::regex_search(mnemonic.begin(), mnemonic.end(), compiled_->regex);
}

const signature_table& signature_table::builtin() {
  static const signature_table table = [] {
    auto parsed = parse(embedded::sass_signatures_toml, std::string{builtin_signature_file});
    if (!parsed)
      throw std::logic_error("the built-in SASS signature table is broken:\n" +
                             config::to_string(parsed.error()));
    return std::move(*parsed);
  }();
  return table;
}

expected<signature_table, config::spec_errors>
signature_table::load(const std::filesystem::path& path) {
  auto text = detail::read_text_file(path);
  if (!text)
    return unexpected(config::spec_errors{
        {path.string(), 0, 0, "", "cannot read the signature table", "check the path"}});
  return parse(*text, path.string());
}

expected<signature_table, config::spec_errors> signature_table::parse(std::string_view text,
                                                                      std::string file) {
  detail::data_reader reader(file);
  auto document = reader.parse(text);
  if (!document)
    return unexpected(std::move(reader.errors()));
  reader.check_keys(*document, "", root_keys);

  static const auto verify_names = names_of(all_verify_modes);
  static const auto match_names = names_of(all_match_modes);

  signature_table table;
  table.file_ = std::move(file);
  std::map<std::string, std::uint32_t, std::less<>> first_line; // id → line of its first entry
  const auto entries = reader.tables(*document, "signature", true);
  for (std::size_t index = 0; index < entries.size(); ++index) {
    const toml::table& entry = *entries[index];
    const std::string path = detail::index_key("signature", index);
    reader.check_keys(entry, path, entry_keys);

    method_signature signature;
    signature.line = entry.source().begin.line;
    auto id = reader.string(entry, path, "id", true);
    if (id) {
      if (id->value.empty() || id->value.find_first_of(" \t") != std::string::npos) {
        reader.error(id->line, id->column, path + ".id",
                     "'" + id->value + "' is not an id: it must be non-empty, without spaces");
      } else if (auto [it, inserted] = first_line.emplace(id->value, id->line); !inserted) {
        reader.error(id->line, id->column, path + ".id",
                     "duplicate id '" + id->value + "' (first at line " +
                         std::to_string(it->second) + ")",
                     "each id has one entry; merge the two");
      }
      signature.id = id->value;
    }
    if (auto verify = reader.string(entry, path, "verify", false)) {
      if (auto mode = verify_mode_from_string(verify->value))
        signature.verify = *mode;
      else
        reader.unknown_value(verify->line, verify->column, path + ".verify", verify->value,
                             verify_names);
    }
    if (auto match = reader.string(entry, path, "match", false)) {
      if (auto mode = match_mode_from_string(match->value))
        signature.match = *mode;
      else
        reader.unknown_value(match->line, match->column, path + ".match", match->value,
                             match_names);
    }
    if (auto reason = reader.string(entry, path, "reason", false))
      signature.reason = reason->value;

    const bool runtime = signature.verify == verify_mode::runtime;
    const auto patterns = reader.strings(entry, path, "patterns", false);
    const auto forbid = reader.strings(entry, path, "forbid", false);
    if (runtime) {
      if (patterns || forbid)
        reader.error(entry.source().begin.line, entry.source().begin.column, path,
                     "verify = \"runtime\" takes no patterns or forbid",
                     "remove them, or set verify = \"sass\"");
      if (signature.reason.empty())
        reader.error(entry.source().begin.line, entry.source().begin.column, path + ".reason",
                     "missing; a runtime signature says why SASS cannot show the method");
    } else {
      if (patterns)
        signature.patterns = compile_all(reader, *patterns, path + ".patterns");
      if (forbid)
        signature.forbid = compile_all(reader, *forbid, path + ".forbid");
      if (entry.get("patterns") == nullptr || (patterns && patterns->empty()))
        reader.error(entry.source().begin.line, entry.source().begin.column, path + ".patterns",
                     "missing or empty; a sass signature needs at least one pattern",
                     "or set verify = \"runtime\" with a reason");
    }
    table.signatures_.push_back(std::move(signature));
  }
  if (!reader.ok())
    return unexpected(std::move(reader.errors()));
  return table;
}

const method_signature* signature_table::find(std::string_view id) const {
  for (const auto& signature : signatures_)
    if (signature.id == id)
      return &signature;
  return nullptr;
}

} // namespace warpforge::sass
