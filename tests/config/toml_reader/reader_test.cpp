#include "config/toml_reader/reader.hpp"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>

namespace warpforge::toml_reader {
namespace {

toml::table parsed(std::string_view text) {
  auto root = parse(text, "t.toml");
  EXPECT_TRUE(root.has_value()) << (root ? "" : to_string(root.error()));
  return root ? std::move(*root) : toml::table{};
}

/// The error with `key`, or a failed test.
const placed_error* error_at(const placed_errors& errors, std::string_view key) {
  for (const auto& error : errors)
    if (error.key == key)
      return &error;
  ADD_FAILURE() << "no error at '" << key << "' among:\n" << to_string(errors);
  return nullptr;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

TEST(TomlReader, ASyntaxErrorIsPlacedWithAHintAndNoKey) {
  auto root = parse("a = 1\nb = \"unterminated\n", "t.toml");
  ASSERT_FALSE(root.has_value());
  EXPECT_EQ(root.error().file, "t.toml");
  EXPECT_EQ(root.error().line, 2u);
  EXPECT_TRUE(root.error().key.empty());
  EXPECT_TRUE(contains(root.error().message, "TOML syntax error")) << root.error().message;
  EXPECT_EQ(root.error().hint, "the file must be valid TOML 1.0 (https://toml.io)");
}

TEST(TomlReader, TypedReadsReturnValuesAndReportMissingAndMistypedKeys) {
  const auto root =
    parsed("name = \"x\"\ncount = 3\nratio = 2\nflag = \"yes\"\n[kernel]\nentry = 1\n");
  placed_errors errors;
  reader r{"t.toml", errors};
  EXPECT_EQ(r.string(root, "", "name", presence::required), "x");
  EXPECT_EQ(r.integer(root, "", "count", presence::required), 3);
  EXPECT_EQ(r.number(root, "", "ratio", presence::required), 2.0); // integers are numbers
  EXPECT_EQ(r.boolean(root, "", "flag", presence::required), std::nullopt);
  EXPECT_EQ(r.string(root, "", "absent", presence::optional), std::nullopt);
  EXPECT_EQ(r.string(root, "", "title", presence::required), std::nullopt);
  const toml::table* kernel = r.table(root, "", "kernel", presence::required);
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(r.string(*kernel, "kernel", "entry", presence::required), std::nullopt);
  EXPECT_EQ(r.string(*kernel, "kernel", "source", presence::required), std::nullopt);
  ASSERT_EQ(errors.size(), 4u) << to_string(errors);

  const auto* flag = error_at(errors, "flag");
  ASSERT_NE(flag, nullptr);
  EXPECT_EQ(flag->line, 4u);
  EXPECT_EQ(flag->message, "expected a boolean, found a string");
  EXPECT_EQ(flag->hint, "write true or false, unquoted");
  const auto* title = error_at(errors, "title");
  ASSERT_NE(title, nullptr);
  EXPECT_EQ(title->message, "missing required key 'title' in the file (expected a string)");
  const auto* entry = error_at(errors, "kernel.entry");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(
    to_string(*entry),
    "t.toml:6:9: kernel.entry: expected a string, found an integer (hint: quote it: \"...\")");
  const auto* source = error_at(errors, "kernel.source");
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->line, 5u) << "a missing key is placed at its table's header";
  EXPECT_TRUE(contains(source->message, "in [kernel]")) << source->message;
}

TEST(TomlReader, UnknownKeysGetADidYouMeanTheKnownKeysOrTheTopLevelHint) {
  const auto root = parsed("nam = 1\nzzz = 2\n[kernel]\nsource = \"k.cu\"\nname = \"late\"\n");
  placed_errors errors;
  reader r{"t.toml", errors};
  constexpr std::array<std::string_view, 2> root_keys{"name", "kernel"};
  constexpr std::array<std::string_view, 1> kernel_keys{"source"};
  r.set_root_keys(root_keys);
  r.check_keys(root, "", root_keys);
  r.check_keys(*root["kernel"].as_table(), "kernel", kernel_keys);
  ASSERT_EQ(errors.size(), 3u) << to_string(errors);
  const auto* typo = error_at(errors, "nam");
  ASSERT_NE(typo, nullptr);
  EXPECT_EQ(typo->message, "unknown key 'nam'");
  EXPECT_EQ(typo->hint, "did you mean 'name'?");
  EXPECT_EQ(typo->line, 1u);
  const auto* far = error_at(errors, "zzz");
  ASSERT_NE(far, nullptr);
  EXPECT_EQ(far->hint, "known keys: name or kernel");
  const auto* late = error_at(errors, "kernel.name");
  ASSERT_NE(late, nullptr);
  EXPECT_TRUE(contains(late->hint, "is a top-level key")) << late->hint;
}

enum class color : std::uint8_t { red, green };
std::string_view to_string(color c) {
  return c == color::red ? "red" : "green";
}
std::optional<color> color_from_string(std::string_view text) {
  if (text == "red")
    return color::red;
  if (text == "green")
    return color::green;
  return std::nullopt;
}
constexpr color all_colors[] = {color::red, color::green};

TEST(TomlReader, AnEnumerationNamesTheAlternativesAndTheClosestOne) {
  const auto root = parsed("a = \"green\"\nb = \"gren\"\nc = 3\n");
  placed_errors errors;
  reader r{"t.toml", errors};
  EXPECT_EQ(r.enumeration(root, "", "a", presence::required, all_colors, &color_from_string),
            color::green);
  EXPECT_EQ(r.enumeration(root, "", "b", presence::required, all_colors, &color_from_string),
            std::nullopt);
  EXPECT_EQ(r.enumeration(root, "", "c", presence::required, all_colors, &color_from_string),
            std::nullopt);
  ASSERT_EQ(errors.size(), 2u) << to_string(errors);
  EXPECT_EQ(to_string(errors[0]),
            "t.toml:2:5: b: unknown value 'gren'; expected one of red or green (hint: did you mean "
            "'green'?)");
  EXPECT_EQ(errors[1].message, "expected a string: red or green, found an integer");
}

TEST(TomlReader, StringsKeepTheirPlacesAndEachNonStringIsReported) {
  const auto root = parsed("names = [\"a\",\n  \"b\"]\nmixed = [\"x\", 2, true]\nnone = 4\n");
  placed_errors errors;
  reader r{"t.toml", errors};
  const auto names = r.strings(root, "", "names", presence::required);
  ASSERT_TRUE(names.has_value());
  ASSERT_EQ(names->size(), 2u);
  EXPECT_EQ((*names)[1].value, "b");
  EXPECT_EQ((*names)[1].at, (place{2, 3}));
  EXPECT_EQ(r.strings(root, "", "mixed", presence::required), std::nullopt);
  EXPECT_EQ(r.strings(root, "", "none", presence::required), std::nullopt);
  ASSERT_EQ(errors.size(), 3u) << to_string(errors);
  EXPECT_NE(error_at(errors, "mixed[1]"), nullptr);
  EXPECT_NE(error_at(errors, "mixed[2]"), nullptr);
  EXPECT_NE(error_at(errors, "none"), nullptr);
}

TEST(TomlReader, TablesAreTheEntriesOfAnArrayOfTablesAndOthersAreReported) {
  const auto root = parsed("[[rule]]\nid = \"a\"\n\n[[rule]]\nid = \"b\"\n");
  placed_errors errors;
  reader r{"t.toml", errors};
  const auto rules = r.tables(root, "", "rule", presence::required);
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[1]->source().begin.line, 4u);
  EXPECT_TRUE(r.tables(root, "", "method", presence::optional).empty());
  EXPECT_TRUE(errors.empty()) << to_string(errors);

  EXPECT_TRUE(r.tables(root, "", "method", presence::required).empty());
  const auto mixed = parsed("gpu = [{ key = \"a\" }, 3]\nrule = 1\n");
  EXPECT_EQ(r.tables(mixed, "", "gpu", presence::required).size(), 1u);
  EXPECT_TRUE(r.tables(mixed, "", "rule", presence::required).empty());
  ASSERT_EQ(errors.size(), 3u) << to_string(errors);
  EXPECT_EQ(errors[0].message,
            "missing required key 'method' in the file (expected [[method]] entries)");
  EXPECT_EQ(errors[0].hint, "add at least one [[method]] entry");
  EXPECT_EQ(errors[1].key, "gpu[1]");
  EXPECT_EQ(errors[2].message, "expected [[rule]] entries, found an integer");
}

TEST(TomlReader, APlaceInAStringCountsFromAfterTheOpeningQuote) {
  const auto root = parsed("when = \"a > 1 and b\"\n");
  const toml::node& when = *root.get("when");
  EXPECT_EQ(place_in_string(when, 1), (place{1, 9}));   // 'a'
  EXPECT_EQ(place_in_string(when, 11), (place{1, 19})); // 'b'
}

TEST(TomlReader, AFileThatCannotBeReadIsAnErrorNamingItAndWhy) {
  const auto missing = read_file("/no/such/rules.toml", "the rule matrix");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(to_string(missing.error()),
            "/no/such/rules.toml: cannot read the rule matrix: no such file (hint: check that the "
            "file exists and is readable)");
  const auto folder = read_file(std::filesystem::temp_directory_path(), "the rule matrix");
  ASSERT_FALSE(folder.has_value());
  EXPECT_TRUE(contains(folder.error().message, "not a regular file")) << folder.error().message;

  const auto path = std::filesystem::temp_directory_path() /
                    ("wf-toml-reader-" + std::to_string(::getpid()) + ".toml");
  std::ofstream{path} << "a = 1\n";
  const auto text = read_file(path, "the rule matrix");
  std::filesystem::remove(path);
  ASSERT_TRUE(text.has_value()) << to_string(text.error());
  EXPECT_EQ(*text, "a = 1\n");
}

} // namespace
} // namespace warpforge::toml_reader
