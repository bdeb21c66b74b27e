#include "sass/method_check.hpp"

#include "foundation/vocabulary/enum_text.hpp"
#include "sass/structure.hpp"

#include <algorithm>
#include <cctype>

namespace warpforge::sass {
namespace {

/// An instruction in scope, with its mnemonic computed once.
struct scoped_instruction {
  const sass_kernel* kernel;
  const sass_instruction* instruction;
  std::string mnemonic;
};

/// The instructions a check looks at, or why there are none to look at.
struct scope {
  std::vector<const sass_kernel*> kernels;
  std::vector<scoped_instruction> instructions;
  std::optional<std::string> unavailable; // set: nothing to look at, and why
};

std::string join_names(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names)
    text += (text.empty() ? "" : ", ") + name;
  return text;
}

scope collect(const disassembly& listing, const check_options& options) {
  scope result;
  std::vector<const sass_kernel*> kernels;
  if (options.kernel) {
    // Every kernel of that name: a fat binary holds one per architecture.
    for (const auto& kernel : listing.kernels)
      if (kernel.name == *options.kernel)
        kernels.push_back(&kernel);
    if (kernels.empty()) {
      result.unavailable = "kernel '" + *options.kernel + "' is not in the disassembly (kernels: " +
                           join_names(listing.kernel_names()) + ")";
      return result;
    }
  } else {
    if (listing.kernels.empty()) {
      result.unavailable = "the disassembly holds no kernels";
      return result;
    }
    for (const auto& kernel : listing.kernels)
      kernels.push_back(&kernel);
  }
  result.kernels = kernels;
  for (const sass_kernel* kernel : kernels)
    for (const auto& instruction : kernel->instructions)
      if (options.count_never_executed || !instruction.never_executes())
        result.instructions.push_back({kernel, &instruction, instruction.mnemonic()});
  return result;
}

/// The answer for `id` when its signature needs no instructions (or there are none).
std::optional<method_check> answer_without_code(const signature_table& table,
                                                const std::string& id,
                                                const std::optional<std::string>& unavailable) {
  method_check check;
  check.id = id;
  const method_signature* signature = table.find(id);
  if (signature == nullptr) {
    check.presence = method_presence::unknown_method;
    check.reason = "no signature '" + id + "' in " + table.file();
    return check;
  }
  if (signature->verify == verify_mode::runtime) {
    check.presence = method_presence::not_checkable;
    check.reason = "unverifiable by SASS: " + signature->reason;
    return check;
  }
  if (unavailable) {
    check.presence = method_presence::unavailable;
    check.reason = *unavailable;
    return check;
  }
  return std::nullopt;
}

/// The scope narrowed to the kernels whose symbol matches one of the signature's symbol patterns
/// (all of it when the signature names none).
scope narrow_to_symbols(const method_signature& signature, const scope& in_scope) {
  if (signature.symbols.empty())
    return in_scope;
  scope narrowed;
  for (const sass_kernel* kernel : in_scope.kernels)
    if (std::any_of(signature.symbols.begin(), signature.symbols.end(),
                    [&](const signature_pattern& p) { return p.matches(kernel->name); }))
      narrowed.kernels.push_back(kernel);
  for (const auto& item : in_scope.instructions)
    if (std::find(narrowed.kernels.begin(), narrowed.kernels.end(), item.kernel) !=
        narrowed.kernels.end())
      narrowed.instructions.push_back(item);
  return narrowed;
}

std::vector<std::string> texts_of(const std::vector<signature_pattern>& patterns) {
  std::vector<std::string> texts;
  for (const auto& pattern : patterns)
    texts.push_back(pattern.text());
  return texts;
}

/// The opcode patterns over every instruction in scope (structure = none).
void check_opcode_patterns(const method_signature& signature, const scope& in_scope,
                           const check_options& options, method_check& check) {
  for (const auto& pattern : signature.patterns) {
    bool found = false;
    for (const auto& item : in_scope.instructions) {
      if (!pattern.matches(item.mnemonic))
        continue;
      found = true;
      ++check.match_count;
      if (check.matches.size() < options.quoted_matches)
        check.matches.push_back({item.kernel->name, item.instruction->address,
                                 item.instruction->text, pattern.text(),
                                 item.instruction->line});
    }
    (found ? check.patterns_found : check.patterns_missing).push_back(pattern.text());
  }
}

structure_finding analyse(const method_signature& signature, const sass_kernel& kernel,
                          const std::vector<std::string>& mnemonics) {
  switch (signature.structure) {
    case signature_structure::same_loop:
      return find_same_loop(kernel, signature.patterns, mnemonics);
    case signature_structure::register_tile:
      return find_register_tile(kernel, signature.patterns, mnemonics, signature.min_chains,
                                signature.min_reuse);
    case signature_structure::epilogue: return find_epilogue(kernel, signature.patterns, mnemonics);
    case signature_structure::accumulator_store:
      return find_accumulator_store(kernel, signature.patterns, mnemonics);
    case signature_structure::staged: return find_staged(kernel, signature.patterns, mnemonics);
    case signature_structure::none: break;
  }
  return {};
}

/// A structural signature, kernel by kernel: present when one kernel shows the structure.
/// Returns whether it matched; `detail` says what was found or missing.
bool check_structure(const method_signature& signature, const scope& in_scope,
                     const check_options& options, method_check& check, std::string& detail) {
  for (const sass_kernel* kernel : in_scope.kernels) {
    std::vector<std::string> mnemonics;
    for (const auto& instruction : kernel->instructions)
      mnemonics.push_back(instruction.mnemonic());
    const auto finding = analyse(signature, *kernel, mnemonics);
    detail = finding.detail;
    if (!finding.present)
      continue;
    check.match_count = finding.evidence.size();
    for (std::size_t index : finding.evidence) {
      if (check.matches.size() >= options.quoted_matches)
        break;
      const auto& instruction = kernel->instructions[index];
      check.matches.push_back({kernel->name, instruction.address, instruction.text,
                               std::string{to_string(signature.structure)}, instruction.line});
    }
    check.patterns_found = texts_of(signature.patterns);
    return true;
  }
  check.patterns_missing = texts_of(signature.patterns);
  return false;
}

method_check check_one(const method_signature& signature, const scope& full_scope,
                       const check_options& options) {
  method_check check;
  check.id = signature.id;
  const scope in_scope = narrow_to_symbols(signature, full_scope);
  if (in_scope.kernels.empty()) {
    check.presence = method_presence::absent;
    check.reason = "no kernel's symbol matches " + join_names(texts_of(signature.symbols));
    return check;
  }
  std::string detail;
  bool matched = true;
  if (signature.structure != signature_structure::none) {
    matched = check_structure(signature, in_scope, options, check, detail);
  } else if (!signature.patterns.empty()) {
    check_opcode_patterns(signature, in_scope, options, check);
    matched = signature.match == match_mode::any ? !check.patterns_found.empty()
                                                 : check.patterns_missing.empty();
  } else { // the symbol alone decides: quote the kernel
    const sass_kernel* kernel = in_scope.kernels.front();
    check.match_count = in_scope.kernels.size();
    check.matches.push_back({kernel->name, 0, "symbol " + kernel->name,
                             join_names(texts_of(signature.symbols)), kernel->line});
    detail = "the kernel's symbol names it";
  }
  for (const auto& pattern : signature.forbid)
    if (std::any_of(in_scope.instructions.begin(), in_scope.instructions.end(),
                    [&](const scoped_instruction& item) { return pattern.matches(item.mnemonic); }))
      check.forbidden_found.push_back(pattern.text());

  if (matched && check.forbidden_found.empty()) {
    check.presence = method_presence::present;
    check.reason = detail.empty() ? signature.reason
                                  : detail + (signature.reason.empty() ? "" : "; " + signature.reason);
    return check;
  }
  check.presence = method_presence::absent;
  if (!matched && signature.structure != signature_structure::none)
    check.reason = detail;
  else if (!matched)
    check.reason = signature.match == match_mode::any
                       ? "no instruction matches any of " + join_names(check.patterns_missing)
                       : "no instruction matches " + join_names(check.patterns_missing) +
                             " (all patterns are required)";
  else
    check.reason = "forbidden instructions present: " + join_names(check.forbidden_found);
  return check;
}

std::string upper(std::string_view text) {
  std::string result{text};
  for (auto& c : result)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return result;
}

/// Opcode and modifiers of an expected "LDG.E.128", upper-cased.
struct opcode_spec {
  std::string opcode;
  std::vector<std::string> modifiers;
};

opcode_spec split_spec(std::string_view text) {
  opcode_spec spec;
  const std::string upper_text = upper(text);
  std::size_t start = 0;
  while (true) {
    const auto dot = upper_text.find('.', start);
    auto part = upper_text.substr(start, dot == std::string::npos ? dot : dot - start);
    if (start == 0)
      spec.opcode = std::move(part);
    else if (!part.empty())
      spec.modifiers.push_back(std::move(part));
    if (dot == std::string::npos)
      break;
    start = dot + 1;
  }
  return spec;
}

bool satisfies(const sass_instruction& instruction, const opcode_spec& spec) {
  if (spec.opcode.empty() || upper(instruction.opcode) != spec.opcode)
    return false;
  return std::all_of(spec.modifiers.begin(), spec.modifiers.end(), [&](const std::string& m) {
    return std::any_of(instruction.modifiers.begin(), instruction.modifiers.end(),
                       [&](const std::string& have) { return upper(have) == m; });
  });
}

} // namespace

constexpr vocabulary::enum_word<method_presence> method_presence_words[] = {
    {method_presence::present, "present"},
    {method_presence::absent, "absent"},
    {method_presence::unavailable, "unavailable"},
    {method_presence::not_checkable, "not_checkable"},
    {method_presence::unknown_method, "unknown_method"},
};
static_assert(vocabulary::covers(method_presence_words, all_method_presences));

std::string_view to_string(method_presence presence) { return vocabulary::word_of(method_presence_words, presence); }

std::optional<method_presence> method_presence_from_string(std::string_view text) {
  return vocabulary::value_of(method_presence_words, text);
}

constexpr vocabulary::enum_word<opcode_outcome> opcode_outcome_words[] = {
    {opcode_outcome::all_present, "all_present"},
    {opcode_outcome::missing, "missing"},
    {opcode_outcome::unavailable, "unavailable"},
};
static_assert(vocabulary::covers(opcode_outcome_words, all_opcode_outcomes));

std::string_view to_string(opcode_outcome outcome) { return vocabulary::word_of(opcode_outcome_words, outcome); }

std::optional<opcode_outcome> opcode_outcome_from_string(std::string_view text) {
  return vocabulary::value_of(opcode_outcome_words, text);
}

std::vector<method_check> check_methods(const disassembly& listing, const signature_table& table,
                                        std::span<const std::string> ids,
                                        const check_options& options) {
  const scope in_scope = collect(listing, options);
  std::vector<method_check> checks;
  checks.reserve(ids.size());
  for (const auto& id : ids) {
    if (auto answer = answer_without_code(table, id, in_scope.unavailable))
      checks.push_back(std::move(*answer));
    else
      checks.push_back(check_one(*table.find(id), in_scope, options));
  }
  return checks;
}

std::vector<method_check> check_methods(const expected<disassembly, disassemble_failure>& listing,
                                        const signature_table& table,
                                        std::span<const std::string> ids,
                                        const check_options& options) {
  if (listing)
    return check_methods(*listing, table, ids, options);
  std::vector<method_check> checks;
  checks.reserve(ids.size());
  for (const auto& id : ids)
    checks.push_back(*answer_without_code(table, id, listing.error().to_string()));
  return checks;
}

opcode_check check_opcodes(const disassembly& listing, std::span<const std::string> opcodes,
                           const check_options& options) {
  opcode_check check;
  const scope in_scope = collect(listing, options);
  if (in_scope.unavailable) {
    check.reason = *in_scope.unavailable;
    return check;
  }
  for (const auto& text : opcodes) {
    const auto spec = split_spec(text);
    const bool found = std::any_of(
        in_scope.instructions.begin(), in_scope.instructions.end(),
        [&](const scoped_instruction& item) { return satisfies(*item.instruction, spec); });
    (found ? check.found : check.missing).push_back(text);
  }
  check.outcome = check.missing.empty() ? opcode_outcome::all_present : opcode_outcome::missing;
  return check;
}

opcode_check check_opcodes(const expected<disassembly, disassemble_failure>& listing,
                           std::span<const std::string> opcodes, const check_options& options) {
  if (listing)
    return check_opcodes(*listing, opcodes, options);
  opcode_check check;
  check.reason = listing.error().to_string();
  return check;
}

} // namespace warpforge::sass
