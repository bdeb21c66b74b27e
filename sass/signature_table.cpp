#include "sass/signature_table.hpp"

#include "config/toml_reader/reader.hpp"

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

using toml_reader::presence;

constexpr std::array<std::string_view, 1> root_keys{"signature"};
constexpr std::array<std::string_view, 10> entry_keys{"id",        "verify",    "match",      "patterns",
                                                       "forbid",    "reason",    "structure",  "min_chains",
                                                       "min_reuse", "symbols"};

/// Compiles each placed pattern, reporting bad ones at their place.
std::vector<signature_pattern> compile_all(toml_reader::reader& reader,
                                           const std::vector<toml_reader::placed_string>& texts,
                                           const std::string& key) {
  std::vector<signature_pattern> patterns;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto& text = texts[i];
    if (text.value.empty()) {
      reader.error(text.at, toml_reader::index_key(key, i), "empty pattern",
                   "write a regular expression over the mnemonic, e.g. '^LDG\\..*\\b128\\b'");
      continue;
    }
    auto compiled = signature_pattern::compile(text.value);
    if (!compiled) {
      reader.error(text.at, toml_reader::index_key(key, i),
                   "invalid regular expression '" + text.value + "': " + compiled.error(),
                   "ECMAScript syntax, as std::regex reads it");
      continue;
    }
    patterns.push_back(std::move(*compiled));
  }
  return patterns;
}

/// The structure, min_chains, min_reuse, symbols, patterns and forbid of one entry, checked against its
/// verify mode. `verify_known`: false when verify was unreadable (reported; no cascade here).
void read_patterns(toml_reader::reader& reader, const toml::table& entry, const std::string& path,
                   method_signature& signature, bool verify_known) {
  if (auto structure = reader.enumeration(entry, path, "structure", presence::optional,
                                          all_signature_structures,
                                          &signature_structure_from_string))
    signature.structure = *structure;
  if (auto chains = reader.integer(entry, path, "min_chains", presence::optional)) {
    if (*chains < 1 || signature.structure != signature_structure::register_tile)
      reader.error(entry.get("min_chains")->source(), path + ".min_chains",
                   "min_chains is a count of at least 1, for structure = \"register_tile\"");
    else
      signature.min_chains = static_cast<std::uint32_t>(*chains);
  } else if (signature.structure == signature_structure::register_tile) {
    reader.error(entry.source(), path + ".min_chains", "missing; register_tile needs a count");
  }
  if (auto reuse = reader.number(entry, path, "min_reuse", presence::optional)) {
    if (!(*reuse > 0) || signature.structure != signature_structure::register_tile)
      reader.error(entry.get("min_reuse")->source(), path + ".min_reuse",
                   "min_reuse is a ratio above 0 (multiply-adds per 32-bit word loaded), for structure = "
                   "\"register_tile\"");
    else
      signature.min_reuse = *reuse;
  }
  const auto patterns = reader.strings(entry, path, "patterns", presence::optional);
  const auto forbid = reader.strings(entry, path, "forbid", presence::optional);
  const auto symbols = reader.strings(entry, path, "symbols", presence::optional);
  if (!verify_known)
    return;
  if (signature.verify == verify_mode::runtime) {
    if (patterns || forbid || symbols || entry.contains("structure"))
      reader.error(entry.source(), path,
                   "verify = \"runtime\" takes no patterns, forbid, symbols or structure",
                   "remove them, or set verify = \"sass\"");
    if (signature.reason.empty())
      reader.error(entry.source(), path + ".reason",
                   "missing; a runtime signature says why SASS cannot show the method");
    return;
  }
  if (patterns)
    signature.patterns = compile_all(reader, *patterns, path + ".patterns");
  if (forbid)
    signature.forbid = compile_all(reader, *forbid, path + ".forbid");
  if (symbols)
    signature.symbols = compile_all(reader, *symbols, path + ".symbols");
  const bool no_patterns = entry.get("patterns") == nullptr || (patterns && patterns->empty());
  if (no_patterns && (!symbols || symbols->empty()))
    reader.error(entry.source(), path + ".patterns",
                 "missing or empty; a sass signature needs at least one pattern (or symbols)",
                 "or set verify = \"runtime\" with a reason");
  else if (no_patterns && signature.structure != signature_structure::none)
    reader.error(entry.source(), path + ".patterns",
                 "structure = \"" + std::string{to_string(signature.structure)} +
                   "\" needs patterns");
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

std::string_view to_string(signature_structure structure) {
  switch (structure) {
    case signature_structure::none: return "none";
    case signature_structure::same_loop: return "same_loop";
    case signature_structure::register_tile: return "register_tile";
    case signature_structure::epilogue: return "epilogue";
    case signature_structure::accumulator_store: return "accumulator_store";
    case signature_structure::staged: return "staged";
  }
  return "unknown";
}

std::optional<signature_structure> signature_structure_from_string(std::string_view text) {
  for (auto structure : all_signature_structures)
    if (to_string(structure) == text)
      return structure;
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
                             toml_reader::to_string(parsed.error()));
    return std::move(*parsed);
  }();
  return table;
}

expected<signature_table, toml_reader::placed_errors>
signature_table::load(const std::filesystem::path& path) {
  auto text = toml_reader::read_file(path, "the signature table");
  if (!text)
    return unexpected(toml_reader::placed_errors{std::move(text).error()});
  return parse(*text, path.string());
}

expected<signature_table, toml_reader::placed_errors> signature_table::parse(std::string_view text,
                                                                             std::string file) {
  auto document = toml_reader::parse(text, file);
  if (!document)
    return unexpected(toml_reader::placed_errors{std::move(document).error()});
  toml_reader::placed_errors errors;
  toml_reader::reader reader{file, errors};
  reader.check_keys(*document, "", root_keys);

  signature_table table;
  table.file_ = std::move(file);
  std::map<std::string, std::uint32_t, std::less<>> first_line; // id → line of its first entry
  const auto entries = reader.tables(*document, "", "signature", presence::required);
  for (std::size_t index = 0; index < entries.size(); ++index) {
    const toml::table& entry = *entries[index];
    const std::string path = toml_reader::index_key("signature", index);
    reader.check_keys(entry, path, entry_keys);

    method_signature signature;
    signature.line = entry.source().begin.line;
    if (auto id = reader.string(entry, path, "id", presence::required)) {
      const auto& at = entry.get("id")->source();
      if (id->empty() || id->find_first_of(" \t") != std::string::npos) {
        reader.error(at, path + ".id",
                     "'" + *id + "' is not an id: it must be non-empty, without spaces");
      } else if (auto [it, inserted] = first_line.emplace(*id, at.begin.line); !inserted) {
        reader.error(at, path + ".id",
                     "duplicate id '" + *id + "' (first at line " + std::to_string(it->second) +
                       ")",
                     "each id has one entry; merge the two");
      }
      signature.id = *id;
    }
    const auto verify = reader.enumeration(entry, path, "verify", presence::optional,
                                           all_verify_modes, &verify_mode_from_string);
    if (verify)
      signature.verify = *verify;
    if (auto mode = reader.enumeration(entry, path, "match", presence::optional, all_match_modes,
                                       &match_mode_from_string))
      signature.match = *mode;
    if (auto reason = reader.string(entry, path, "reason", presence::optional))
      signature.reason = *reason;

    read_patterns(reader, entry, path, signature, verify.has_value() || !entry.contains("verify"));
    table.signatures_.push_back(std::move(signature));
  }
  if (!errors.empty()) {
    toml_reader::sort_by_place(errors);
    return unexpected(std::move(errors));
  }
  return table;
}

const method_signature* signature_table::find(std::string_view id) const {
  for (const auto& signature : signatures_)
    if (signature.id == id)
      return &signature;
  return nullptr;
}

} // namespace warpforge::sass
