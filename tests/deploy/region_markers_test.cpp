// The region markers of a user's file (deploy/region_markers.hpp): every way they can be wrong is
// refused with the file and line, and a deploy's splice refuses the same before writing a byte.

#include "deploy/regions/region_markers.hpp"
#include "deploy/source_splice.hpp"

#include <gtest/gtest.h>

namespace warpforge::deploy {
namespace {

std::string error_of(std::string_view text) {
  auto regions = read_regions(text, "src/k.cu");
  return regions ? std::string{"(no error)"} : regions.error();
}

TEST(region_markers, regions_are_read_in_order_with_their_lines_and_content) {
  const std::string text = "host\n// warpforge:begin a\nA\n// warpforge:end a\n  // warpforge:begin b\nB1\nB2\n\t// warpforge:end b\n";
  auto regions = read_regions(text, "src/k.cu");
  ASSERT_TRUE(regions) << regions.error();
  ASSERT_EQ(regions->size(), 2u);
  EXPECT_EQ((*regions)[0].name, "a");
  EXPECT_EQ((*regions)[0].begin_line, 2u);
  EXPECT_EQ((*regions)[0].end_line, 4u);
  EXPECT_EQ(text.substr((*regions)[1].content_begin, (*regions)[1].content_end - (*regions)[1].content_begin), "B1\nB2\n");
  EXPECT_EQ(read_regions("no markers at all\n// warpforge:beginning is not a marker\n", "f")->size(), 0u);
}

TEST(region_markers, a_missing_end_is_refused_at_its_begin_line) {
  EXPECT_EQ(error_of("x\n// warpforge:begin k\ncode\n"),
            "src/k.cu:2: region 'k' has no `// warpforge:end k` after it");
}

TEST(region_markers, an_end_without_its_begin_is_refused) {
  EXPECT_EQ(error_of("code\n// warpforge:end k\n"), "src/k.cu:2: `// warpforge:end k` without its begin");
}

TEST(region_markers, a_region_marked_twice_is_refused_naming_both_lines) {
  EXPECT_EQ(error_of("// warpforge:begin k\n// warpforge:end k\n// warpforge:begin k\n// warpforge:end k\n"),
            "src/k.cu:3: region 'k' is marked twice (first at line 1): a deploy would not know which to replace");
}

TEST(region_markers, a_region_inside_another_is_refused) {
  EXPECT_EQ(error_of("// warpforge:begin outer\n// warpforge:begin inner\n// warpforge:end inner\n// warpforge:end outer\n"),
            "src/k.cu:2: region 'inner' begins inside region 'outer' (begun at line 1): regions do not nest; end one "
            "before the next begins");
  EXPECT_EQ(error_of("// warpforge:begin a\n// warpforge:end b\n"),
            "src/k.cu:2: `// warpforge:end b` without its begin (region 'a' is open, begun at line 1)");
}

TEST(region_markers, a_marker_without_a_name_is_refused) {
  EXPECT_EQ(error_of("// warpforge:begin\n"),
            "src/k.cu:1: a region marker without a region name (write `// warpforge:begin <name>`)");
}

TEST(region_markers, the_splice_refuses_wrong_markers_in_the_target_naming_its_file_and_line) {
  const std::string target = "// warpforge:begin k\nold\n// warpforge:begin k2\n// warpforge:end k2\n// warpforge:end k\n";
  auto out = splice(target, "k", "new\n", "/project/src/k.cu");
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().rfind("/project/src/k.cu:3: region 'k2' begins inside region 'k'", 0), 0u) << out.error();
  auto missing = splice("// warpforge:begin a\n// warpforge:end a\n", "k", "x", "/project/src/k.cu");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().rfind("/project/src/k.cu: no region 'k'", 0), 0u) << missing.error();
}

TEST(region_markers, only_the_region_changes_whatever_code_it_holds) {
  // A C++ template kernel with its helper: the whole region is replaced, the host code kept byte for byte.
  const std::string host_before = "#include <cstdio>\nint main() { return 0; }\n";
  const std::string target = "// warpforge:begin reduce7\ntemplate <class T> __device__ T helper(T);\n"
                             "template <class T, unsigned B> __global__ void reduce7(const T*, T*, unsigned) {}\n"
                             "// warpforge:end reduce7\n" + host_before;
  auto out = splice(target, "reduce7", "#ifndef B\n#define B 128\n#endif\nnew code\n", "k.cu");
  ASSERT_TRUE(out) << out.error();
  EXPECT_EQ(*out, "// warpforge:begin reduce7\n#ifndef B\n#define B 128\n#endif\nnew code\n// warpforge:end reduce7\n" +
                    host_before);
}

} // namespace
} // namespace warpforge::deploy
