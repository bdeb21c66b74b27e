#pragma once
// The SASS signature table: for each method-catalog id (and a few short evidence names), the
// opcode patterns that show the method in a kernel's SASS, or the reason SASS cannot show it.
// The data is sass/data/sass_signatures.toml (its header documents the format; docs/sass.md the
// rest), compiled in; users may load their own copy.
//
//   const auto& table = signature_table::builtin();
//   auto custom = signature_table::load("my_signatures.toml");  // placed_errors with file:line

#include "foundation/expected/expected.hpp"
#include "config/toml_reader/placed_error.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::sass {

/// How a signature's patterns combine.
enum class match_mode {
  any, // present when at least one pattern matches some instruction
  all, // present when every pattern matches some instruction (not necessarily the same one)
};

/// Whether SASS can show a method at all.
enum class verify_mode {
  sass,    // the patterns decide: present or absent
  runtime, // host-side, launch-time or address-pattern methods: a check says not_checkable
};

/// What the patterns must show beyond appearing somewhere in the kernel (sass/structure.hpp).
enum class signature_structure {
  none,              // the patterns alone decide (match = any / all over the kernel)
  same_loop,         // every pattern matches inside one loop body
  register_tile,     // one loop body holds >= min_chains independent multiply-add chains, and
                     // >= min_reuse multiply-adds per word it loads
  epilogue,          // arithmetic (the patterns) between a main loop's accumulator and a store
  accumulator_store, // a store matching the patterns writes a multiply-add accumulator
  staged,            // global data staged in shared memory, read by a matching instruction
};

inline constexpr match_mode all_match_modes[] = {match_mode::any, match_mode::all};
inline constexpr verify_mode all_verify_modes[] = {verify_mode::sass, verify_mode::runtime};
inline constexpr signature_structure all_signature_structures[] = {
    signature_structure::none,     signature_structure::same_loop,
    signature_structure::register_tile, signature_structure::epilogue,
    signature_structure::accumulator_store, signature_structure::staged};

std::string_view to_string(match_mode mode);
std::optional<match_mode> match_mode_from_string(std::string_view text);
std::string_view to_string(verify_mode mode);
std::optional<verify_mode> verify_mode_from_string(std::string_view text);
std::string_view to_string(signature_structure structure);
std::optional<signature_structure> signature_structure_from_string(std::string_view text);

/// A compiled regular expression (ECMAScript, case-insensitive); defined in the .cpp so that
/// <regex> stays out of every includer.
struct compiled_pattern;

/// One regular expression over an instruction's mnemonic ("LDG.E.128.CONSTANT").
class signature_pattern {
public:
  /// Compiles `text`; the error is std::regex's explanation.
  static expected<signature_pattern, std::string> compile(std::string text);

  const std::string& text() const { return text_; }
  /// regex_search over `mnemonic`, ignoring case.
  bool matches(std::string_view mnemonic) const;

private:
  signature_pattern(std::string text, std::shared_ptr<const compiled_pattern> compiled)
      : text_(std::move(text)), compiled_(std::move(compiled)) {}

  std::string text_;
  std::shared_ptr<const compiled_pattern> compiled_; // shared: copies of a table are cheap
};

/// What one method (or evidence name) looks like in SASS.
struct method_signature {
  std::string id;                          // "memory.vectorized_access" or "spills"
  verify_mode verify = verify_mode::sass;
  match_mode match = match_mode::any;
  std::vector<signature_pattern> patterns; // empty when verify == runtime, or symbols decide
  std::vector<signature_pattern> forbid;   // present only if none of these match
  signature_structure structure = signature_structure::none;
  std::uint32_t min_chains = 0;            // register_tile: independent accumulator chains
  double min_reuse = 0;                    // register_tile: multiply-adds per 32-bit word loaded
                                           // (LDS / LDG / LD / LDSM) in that loop body; 0: no bound
  std::vector<signature_pattern> symbols;  // the kernel's symbol (mangled name) must match one;
                                           // with no patterns, the symbol alone decides
  std::string reason;                      // runtime: why SASS cannot show it; sass: caveats
  std::uint32_t line = 0;                  // where the entry starts in its file (1-based)
};

class signature_table {
public:
  /// The compiled-in sass/data/sass_signatures.toml. Parsed once; a broken built-in table is a
  /// build defect (the tests load it) and throws std::logic_error naming its errors.
  static const signature_table& builtin();
  /// A user's table; every error of the file, placed.
  static expected<signature_table, toml_reader::placed_errors>
  load(const std::filesystem::path& path);
  /// `text` as a table; `file` names it in errors.
  static expected<signature_table, toml_reader::placed_errors> parse(std::string_view text,
                                                                     std::string file);

  /// The entry with `id`, or nullptr.
  const method_signature* find(std::string_view id) const;
  /// Every entry, in file order.
  const std::vector<method_signature>& signatures() const { return signatures_; }
  /// The file the table came from ("<builtin>/sass/data/sass_signatures.toml" when compiled in).
  const std::string& file() const { return file_; }

private:
  std::string file_;
  std::vector<method_signature> signatures_;
};

/// The name errors give the compiled-in table.
inline constexpr std::string_view builtin_signature_file = "<builtin>/sass/data/sass_signatures.toml";

} // namespace warpforge::sass
