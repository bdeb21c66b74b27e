// The frame of a data-table loader (config/toml_reader/table_file.hpp): what the loaders of sass/
// and diagnosis/ no longer write themselves, on small tables written here.
#include "config/toml_reader/table_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace warpforge::toml_reader {
namespace {

constexpr std::string_view root_keys[] = {"item"};

// A toy table: the names of its [[item]] entries (each needs a name).
expected<std::vector<std::string>, placed_errors> parse_items(std::string_view text, const std::string& file) {
  std::vector<std::string> names;
  auto read = read_document(text, file, root_keys, [&](const toml::table& root, reader& fields) {
    const auto entries = fields.tables(root, "", "item", presence::required);
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (auto name = fields.string(*entries[i], index_key("item", i), "name", presence::required))
        names.push_back(*name);
  });
  if (!read)
    return unexpected(std::move(read).error());
  return names;
}

TEST(TableFile, ReadsAWholeTableThroughTheLoadersOwnReads) {
  auto items = parse_items("[[item]]\nname = \"a\"\n[[item]]\nname = \"b\"\n", "items.toml");
  ASSERT_TRUE(items) << to_string(items.error());
  EXPECT_EQ(*items, (std::vector<std::string>{"a", "b"}));
}

TEST(TableFile, ASyntaxErrorIsTheOnlyErrorAndTheReadsDoNotRun) {
  auto items = parse_items("[[item]\nname = \"a\"\n", "items.toml");
  ASSERT_FALSE(items);
  ASSERT_EQ(items.error().size(), 1u);
  EXPECT_EQ(items.error()[0].file, "items.toml");
  EXPECT_EQ(items.error()[0].line, 1u);
}

TEST(TableFile, EveryErrorComesBackInFileOrderUnknownRootKeysAmongThem) {
  // This loader reads its entries last to first, so it reports their missing names out of order.
  auto backwards = [](std::string_view text, const std::string& file) {
    return read_document(text, file, root_keys, [&](const toml::table& root, reader& fields) {
      const auto entries = fields.tables(root, "", "item", presence::required);
      for (std::size_t i = entries.size(); i-- > 0;)
        (void)fields.string(*entries[i], index_key("item", i), "name", presence::required);
    });
  };
  auto read = backwards("other = 1\n[[item]]\nlabel = \"a\"\n[[item]]\nlabel = \"b\"\n", "items.toml");
  ASSERT_FALSE(read);
  ASSERT_EQ(read.error().size(), 3u) << to_string(read.error());
  EXPECT_EQ(read.error()[0].key, "other"); // the root's unknown key, line 1
  EXPECT_EQ(read.error()[0].line, 1u);
  EXPECT_EQ(read.error()[1].line, 2u);     // item[0], though reported last
  EXPECT_EQ(read.error()[2].line, 4u);     // item[1]
}

TEST(TableFile, LoadTableNamesTheFileItCannotReadAndWhatItIs) {
  const auto missing = std::filesystem::temp_directory_path() / "wf-table-file-test-no-such.toml";
  auto items = load_table(missing, "the item table", parse_items);
  ASSERT_FALSE(items);
  ASSERT_EQ(items.error().size(), 1u);
  EXPECT_EQ(items.error()[0].line, 0u);
  EXPECT_NE(to_string(items.error()).find("the item table"), std::string::npos) << to_string(items.error());
}

TEST(TableFile, LoadTableHandsTheFilesTextAndPathToTheParser) {
  const auto file = std::filesystem::temp_directory_path() / "wf-table-file-test-items.toml";
  std::ofstream{file} << "[[item]]\nname = \"from the file\"\n";
  auto items = load_table(file, "the item table", parse_items);
  std::filesystem::remove(file);
  ASSERT_TRUE(items) << to_string(items.error());
  EXPECT_EQ(*items, (std::vector<std::string>{"from the file"}));
}

TEST(TableFile, ABrokenBuiltInCopyIsALogicErrorNamingIt) {
  EXPECT_EQ(builtin_table(parse_items("[[item]]\nname = \"a\"\n", "<builtin>/items.toml"), "item table"),
            (std::vector<std::string>{"a"}));
  try {
    builtin_table(parse_items("[[item]]\n", "<builtin>/items.toml"), "item table");
    FAIL() << "a built-in table with an error must not load";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string{e.what()}.find("the built-in item table does not load"), std::string::npos) << e.what();
    EXPECT_NE(std::string{e.what()}.find("<builtin>/items.toml"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace warpforge::toml_reader
