#include "sass/signature_table.hpp"

#include "config/toml_reader/table_file.hpp"
#include "foundation/vocabulary/enum_text.hpp"

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

constexpr vocabulary::enum_word<match_mode> match_mode_words[] = {{match_mode::any, "any"}, {match_mode::all, "all"}};
static_assert(vocabulary::covers(match_mode_words, all_match_modes));

std::string_view to_string(match_mode mode) { return vocabulary::word_of(match_mode_words, mode); }

std::optional<match_mode> match_mode_from_string(std::string_view text) {
  return vocabulary::value_of(match_mode_words, text);
}

constexpr vocabulary::enum_word<verify_mode> verify_mode_words[] = {
    {verify_mode::sass, "sass"}, {verify_mode::runtime, "runtime"}};
static_assert(vocabulary::covers(verify_mode_words, all_verify_modes));

std::string_view to_string(verify_mode mode) { return vocabulary::word_of(verify_mode_words, mode); }

std::optional<verify_mode> verify_mode_from_string(std::string_view text) {
  return vocabulary::value_of(verify_mode_words, text);
}

constexpr vocabulary::enum_word<signature_structure> signature_structure_words[] = {
    {signature_structure::none, "none"}, {signature_structure::same_loop, "same_loop"},
    {signature_structure::register_tile, "register_tile"}, {signature_structure::epilogue, "epilogue"},
    {signature_structure::accumulator_store, "accumulator_store"}, {signature_structure::staged, "staged"}};
static_assert(vocabulary::covers(signature_structure_words, all_signature_structures));

std::string_view to_string(signature_structure structure) {
  return vocabulary::word_of(signature_structure_words, structure);
}

std::optional<signature_structure> signature_structure_from_string(std::string_view text) {
  return vocabulary::value_of(signature_structure_words, text);
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
  static const signature_table table = toml_reader::builtin_table(
    parse(embedded::sass_signatures_toml, std::string{builtin_signature_file}), "SASS signature table");
  return table;
}

expected<signature_table, toml_reader::placed_errors>
signature_table::load(const std::filesystem::path& path) {
  return toml_reader::load_table(path, "the signature table", &signature_table::parse);
}

expected<signature_table, toml_reader::placed_errors> signature_table::parse(std::string_view text,
                                                                             std::string file) {
  signature_table table;
  table.file_ = file;
  auto read = toml_reader::read_document(
    text, file, root_keys, [&](const toml::table& document, toml_reader::reader& reader) {
    std::map<std::string, std::uint32_t, std::less<>> first_line; // id → line of its first entry
    const auto entries = reader.tables(document, "", "signature", presence::required);
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
  });
  if (!read)
    return unexpected(std::move(read).error());
  return table;
}

const method_signature* signature_table::find(std::string_view id) const {
  for (const auto& signature : signatures_)
    if (signature.id == id)
      return &signature;
  return nullptr;
}

} // namespace warpforge::sass
