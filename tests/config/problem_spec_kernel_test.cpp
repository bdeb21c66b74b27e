// [kernel] as people write kernels (issue 29): C++ and template entries, and include_dirs inside
// the problem's project, each refusal naming the key, its place and the project.

#include "config/problem_spec.hpp"
#include "config/resolved_problem.hpp"

#include "fixture.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace warpforge::config {
namespace {

namespace fs = std::filesystem;

// A folder holding a problem's project: the spec, its kernel and headers, removed after the test.
struct project_folder {
  fs::path root;
  project_folder() {
    std::string pattern = (fs::temp_directory_path() / "wf-spec-XXXXXX").string();
    root = fs::canonical(::mkdtemp(pattern.data()));
    fs::create_directories(root / "app" / "include");
    fs::create_directories(root / "elsewhere");
    write("app/kernels.cu", "template <int BLOCK> __global__ void MatrixMulCUDA(float* c) { c[0] = BLOCK; }\n"
                            "__global__ void transposeNaive(float* o) { o[0] = 1; }\n");
  }
  ~project_folder() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  project_folder(const project_folder&) = delete;
  project_folder& operator=(const project_folder&) = delete;

  void write(const std::string& relative, const std::string& text) const { std::ofstream{root / relative} << text; }

  // A spec at app/problem.toml whose [kernel] table ends with `kernel_lines`.
  expected<problem_spec, toml_reader::placed_errors> load(const std::string& kernel_lines,
                                                          const std::string& more = "") const {
    write("app/problem.toml", "name = \"p\"\n[kernel]\nsource = \"kernels.cu\"\n" + kernel_lines +
                                "[[tunables]]\nname = \"BLOCK\"\nvalues = [16, 32]\ndefault = 32\n"
                                "[[args]]\nname = \"c\"\ndtype = \"f32\"\ncount = 64\nrole = \"output\"\n"
                                "[launch]\ngrid = [1]\nblock = [\"BLOCK\"]\n" + more);
    return load_problem(root / "app" / "problem.toml");
  }
};

std::string errors_text(const expected<problem_spec, toml_reader::placed_errors>& spec) {
  return spec ? std::string{"(loaded)"} : to_string(spec.error());
}

} // namespace

TEST(ProblemSpecKernel, ACppFunctionAndATemplateWithATunableAreEntries) {
  project_folder p;
  auto plain = p.load("entry = \"transposeNaive\"\n");
  ASSERT_TRUE(plain) << errors_text(plain);
  EXPECT_EQ(plain->kernel.entry, "transposeNaive");

  auto templated = p.load("entry = \"MatrixMulCUDA<BLOCK>\"\n");
  ASSERT_TRUE(templated) << errors_text(templated);
  auto at_default = resolve_problem(*templated, default_point(*templated));
  ASSERT_TRUE(at_default) << to_string(at_default.error());
  EXPECT_EQ(at_default->entry, "MatrixMulCUDA<32>");
  auto at_16 = resolve_problem(*templated, tunable_point{{"BLOCK", 16}});
  ASSERT_TRUE(at_16) << to_string(at_16.error());
  EXPECT_EQ(at_16->entry, "MatrixMulCUDA<16>");
}

TEST(ProblemSpecKernel, AnEntryThatIsNoNameOrNotInTheSourceIsAPlacedError) {
  project_folder p;
  auto broken = p.load("entry = \"MatrixMulCUDA<32\"\n");
  ASSERT_FALSE(broken);
  const auto* error = testing::find_error(broken.error(), "kernel.entry");
  ASSERT_NE(error, nullptr) << errors_text(broken);
  EXPECT_EQ(error->line, 4u);
  EXPECT_NE(error->message.find("'MatrixMulCUDA<32' is not a kernel entry: column 14: '<' is never closed"),
            std::string::npos)
      << to_string(*error);

  auto missing = p.load("entry = \"reduce7<int, 256, true>\"\n");
  ASSERT_FALSE(missing);
  error = testing::find_error(missing.error(), "kernel.entry");
  ASSERT_NE(error, nullptr) << errors_text(missing);
  EXPECT_NE(error->message.find("never mentions 'reduce7'"), std::string::npos) << to_string(*error);
}

TEST(ProblemSpecKernel, IncludeDirsAreTheProjectsFoldersMadeAbsolute) {
  project_folder p;
  fs::create_directories(p.root / "app" / "third_party" / "cub");
  auto spec = p.load("entry = \"transposeNaive\"\ninclude_dirs = [\"include\", \"third_party/../third_party/cub\"]\n");
  ASSERT_TRUE(spec) << errors_text(spec);
  EXPECT_EQ(spec->kernel.include_dirs,
            (std::vector<fs::path>{p.root / "app" / "include", p.root / "app" / "third_party" / "cub"}));
}

TEST(ProblemSpecKernel, AnIncludeDirOutsideTheProjectIsRefusedNamingTheKeyAndTheProject) {
  project_folder p;
  fs::create_directory_symlink(p.root / "elsewhere", p.root / "app" / "include" / "vendor");
  const std::string project = "the project '" + (p.root / "app").string() + "' (the spec's folder)";
  struct refused {
    std::string written;
    std::string message;
  };
  const std::vector<refused> cases{
      {"../elsewhere", "'../elsewhere' is outside " + project},
      {"include/../../../..", "'include/../../../..' is outside " + project},
      {(p.root / "app" / "include").string(), "is not a folder relative to " + project},
      {"include/vendor", "'include/vendor' leads outside " + project + " through a symbolic link (to " +
                           (p.root / "elsewhere").string() + ")"},
      {"missing", "'missing' is not a folder of " + project},
      {"kernels.cu", "'kernels.cu' is not a folder of " + project},
  };
  for (const auto& c : cases) {
    auto spec = p.load("entry = \"transposeNaive\"\ninclude_dirs = [\"include\", \"" + c.written + "\"]\n");
    ASSERT_FALSE(spec) << c.written;
    const auto* error = testing::find_error(spec.error(), "kernel.include_dirs[1]");
    ASSERT_NE(error, nullptr) << errors_text(spec);
    EXPECT_EQ(error->line, 5u);
    EXPECT_NE(error->message.find(c.message), std::string::npos) << to_string(*error);
    EXPECT_EQ(testing::find_error(spec.error(), "kernel.include_dirs[0]"), nullptr) << "include is fine";
  }
  auto typed = p.load("entry = \"transposeNaive\"\ninclude_dirs = [\"include\", 3]\n");
  ASSERT_FALSE(typed);
  EXPECT_NE(testing::find_error(typed.error(), "kernel.include_dirs[1]"), nullptr) << errors_text(typed);
}

TEST(ProblemSpecKernel, WithADeployProjectIncludeDirsAreRelativeToIt) {
  project_folder p;
  fs::create_directories(p.root / "app" / "src");
  p.write("app/src/kernel.cuh", "// warpforge:begin k\n// warpforge:end k\n");
  // The spec beside the sources (app/), the project one level up: ../elsewhere is inside it now.
  const std::string deploy = "[deploy]\nproject = \"..\"\nfile = \"app/src/kernel.cuh\"\nbuild = \"true\"\n"
                             "verify = \"true\"\nresult_key = \"kernel_ms\"\n";
  auto spec = p.load("entry = \"transposeNaive\"\ninclude_dirs = [\"elsewhere\", \"app/include\"]\n", deploy);
  ASSERT_TRUE(spec) << errors_text(spec);
  EXPECT_EQ(spec->kernel.include_dirs, (std::vector<fs::path>{p.root / "elsewhere", p.root / "app" / "include"}));
  auto outside = p.load("entry = \"transposeNaive\"\ninclude_dirs = [\"..\"]\n", deploy);
  ASSERT_FALSE(outside);
  const auto* error = testing::find_error(outside.error(), "kernel.include_dirs[0]");
  ASSERT_NE(error, nullptr) << errors_text(outside);
  EXPECT_NE(error->message.find("'..' is outside the project '" + p.root.string() + "' ([deploy] project)"),
            std::string::npos)
      << to_string(*error);
}

} // namespace warpforge::config
